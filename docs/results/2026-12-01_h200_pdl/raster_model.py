"""A model, not a measurement: DRAM bytes the mode-none tile GEMM reads for x and W under a
visiting order, with 132 persistent CTAs in lockstep waves and an LRU L2 of strips.

Calibration: ncu at M = 2048, K = 2304 (BN 224, current order) read 167 MB in all, about 4 x W
(33 MB) + x (9.4 MB) + out (29.4 MB, written); the model gives that with any effective L2 below
W's 33 MB (H200: 50 MB in two partitions), so it is run at 25 MB. Usage: python3 raster_model.py
"""
from collections import OrderedDict

SMS, BM, BN, N = 132, 128, 224, 7168


def order(name, m_tiles, n_tiles):
    if name == "rows (now)":            # all column tiles of a row block, then the next
        return [(w // n_tiles, w % n_tiles) for w in range(m_tiles * n_tiles)]
    if name == "cols":                  # all row blocks of a column tile, then the next
        return [(w % m_tiles, w // m_tiles) for w in range(m_tiles * n_tiles)]
    g = int(name.split("G")[1])         # groups of g row blocks, column tiles within a group
    out = []
    for g0 in range(0, m_tiles, g):
        rows = range(g0, min(g0 + g, m_tiles))
        out += [(mt, nt) for nt in range(n_tiles) for mt in rows]
    return out


def dram_bytes(M, K, name, l2_bytes):
    m_tiles, n_tiles = (M + BM - 1) // BM, N // BN
    xs, ws = BM * K * 2, BN * K * 2
    lru, used, read = OrderedDict(), 0, 0
    seq = order(name, m_tiles, n_tiles)
    for w0 in range(0, len(seq), SMS):
        wave = seq[w0:w0 + SMS]
        strips = {("x", mt) for mt, _ in wave} | {("w", nt) for _, nt in wave}
        for s in sorted(strips):
            size = xs if s[0] == "x" else ws
            if s in lru:
                lru.move_to_end(s)
            else:
                read += size
                lru[s] = size
                used += size
            while used > l2_bytes and len(lru) > 1:
                _, sz = lru.popitem(last=False)
                used -= sz
    return read


if __name__ == "__main__":
    names = ["rows (now)", "cols", "G4", "G8", "G16"]
    print("DRAM MB read for x and W (model, effective L2 25 MB); minimum = x + W once")
    print(f"{'M':>6} {'K':>5} {'min':>6} " + " ".join(f"{n:>10}" for n in names))
    for K in (768, 2304):
        for M in (1024, 2048, 4096, 8192, 16384):
            mn = (M * K + N * K) * 2 / 1e6
            vals = [dram_bytes(M, K, n, 25e6) / 1e6 for n in names]
            print(f"{M:>6} {K:>5} {mn:6.0f} " + " ".join(f"{v:10.0f}" for v in vals))
