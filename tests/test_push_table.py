"""The push table (codegen/runtime/push_table.py): what each rank's epilogue stores through."""
import struct

import pytest

from codegen import contract
from codegen.runtime import push_table


def test_push_descriptors_encode_each_owner_slot():
    calls = []

    def fake(ptr, rows, inner, row_stride, box, swizzle):
        calls.append((ptr, rows, inner, row_stride, tuple(box), swizzle))
        return struct.pack("<QQ", ptr, rows).ljust(contract.TMA_DESC_BYTES, b"\0")

    tp, max_M, N, rank = 4, 1000, 7168, 1
    rp = contract.rows_pad(max_M)
    slot = contract.push_slot_rows(rp, tp)
    G = contract.PUSH_GUARD
    wr = contract.workspace_rows(rp, tp)
    assert wr == tp * (G + slot)
    ws = [0x7000_0000_0000 + o * 0x1_0000_0000 for o in range(tp)]
    blob = push_table.push_descriptors(ws, rank, rp, N, encode=fake)
    fams = contract.PUSH_BOXES
    assert len(blob) == len(fams) * 2 * tp * contract.TMA_DESC_BYTES
    for i, (f, par, o) in enumerate((f, par, o) for f in range(len(fams)) for par in (0, 1)
                                    for o in range(tp)):
        base = ws[o] + (par * wr + rank * (G + slot)) * N * 2
        # descriptor (family f, parity, owner o): owner o's workspace, parity half, the slot
        # of `rank` from its guard: guard + slot rows x N; local row 0 is coordinate G
        assert calls[i] == (base, G + slot, N, 2 * N, *fams[f])
        assert base + G * N * 2 == ws[o] + contract.push_row(par, rank, 0, rp, tp) * N * 2
        assert struct.unpack_from("<QQ", blob, i * contract.TMA_DESC_BYTES) == (base, G + slot)


def test_push_families():
    assert contract.push_family(32) == 0 and contract.push_family(64) == 1
    with pytest.raises(ValueError):
        contract.push_family(128)


def test_pushing_kernels():
    assert contract.pushes_partials("sm_90a", "tile", "rs", "unicast")
    assert contract.pushes_partials("sm_90a", "tile", "ar", "unicast")
    assert not contract.pushes_partials("sm_90a", "tile", "ar", "multicast")
    assert not contract.pushes_partials("sm_100a", "tile", "rs", "unicast")
    assert not contract.pushes_partials("sm_90a", "swapab", "rs", "unicast")
    assert not contract.pushes_partials("sm_90a", "tile", "none", None)


@pytest.mark.parametrize("tp", [2, 4, 8, 16])
def test_push_geometry_covers_every_chunk_once(tp):
    """Simulate the pushed stores (push_first_owner / push_last_owner, push_coordinate, the
    TMA unit's clipping to
    guard + slot rows) for every row tile of many M: each owner's chunk rows are written exactly
    once, each from its own global row, never outside the slot's guard + data rows; and the
    tiles whose flags a source releases in owner o's area are exactly the tiles of o's units
    (what o's communication warps wait for), so no wait can miss its flag."""
    from codegen.contract import (BM, PUSH_GUARD, chunk, owner_units, push_coordinate,
                                  push_first_owner, push_last_owner, push_slot_rows,
                                  raster_unit_rows, rows_pad, unit_piece)

    Ms = sorted(set(list(range(1, 300)) + [383, 384, 385, 511, 512, 1000, 1025, 2047, 4097, 8205]))
    for M in Ms:
        slot = push_slot_rows(rows_pad(M), tp)
        c = chunk(M, tp)
        written = {o: [] for o in range(tp)}
        flagged = {o: set() for o in range(tp)}
        for t in range(-(-M // BM) + 2):                    # and padding tiles past M
            first, last = push_first_owner(t, M, tp), push_last_owner(t, M, tp)
            if t * BM >= M:
                assert last < first                          # nothing past M is pushed
                continue
            assert 0 <= first <= last < tp
            for o in range(first, last + 1):
                flagged[o].add(t)
                coord = push_coordinate(t, o, M, tp)
                assert coord >= 0, (M, t, o)                 # never a negative coordinate
                for i in range(BM):
                    r = coord + i                            # row of the descriptor (from the guard)
                    if r >= PUSH_GUARD + slot:
                        continue                             # clipped by the TMA unit
                    local = r - PUSH_GUARD
                    if 0 <= local < min(c, M - o * c):
                        written[o].append((local, t * BM + i))
        for o in range(tp):
            valid = max(0, min(c, M - o * c))
            assert sorted(written[o]) == [(l, o * c + l) for l in range(valid)], (M, o)
            for group in {raster_unit_rows(cg, tp) for cg in (1, 2)}:
                waited = {unit_piece(o, u, M, c, 1, group)[0]
                          for u in range(owner_units(o, M, c, 1))}
                assert flagged[o] == waited, (M, o, group)
