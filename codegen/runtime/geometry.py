"""Buffer geometry of KERNEL-CONTRACT.md "Shapes" and "Flag area" (pure functions)."""
from __future__ import annotations

BM, BK = 128, 64
MIN_BN = 128  # the smallest BN any variant uses: it gives the most N tiles
FLAG_HEADER_WORDS = 16
ERROR_RECORD_WORDS = 8


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def m_tiles_max(max_M: int) -> int:
    """Even, so a 2-CTA cluster never leaves the buffers."""
    return cdiv(max_M, 2 * BM) * 2


def rows_pad(max_M: int) -> int:
    """Workspace / AR-buffer rows per parity."""
    return m_tiles_max(max_M) * BM


def flag_words(max_M: int, N: int, tp: int, bn: int = MIN_BN) -> int:
    """64-bit words (epochs) of one rank's flag area for tile width `bn`.

    Groups size it with MIN_BN: every BN an op may pick then fits (smaller n_tiles only
    uses a prefix of each region).
    """
    mt, nt = m_tiles_max(max_M), N // bn
    return FLAG_HEADER_WORDS + 2 * mt * nt + mt * nt * tp


def chunk(M: int, tp: int) -> int:
    """Rows each rank owns: rank r owns [r*chunk, min(M, (r+1)*chunk))."""
    return cdiv(M, tp)


def out_shape(mode: str, M: int, N: int, tp: int) -> tuple[int, int]:
    """RS: [ceil(M/tp), N] (rows past M are zeros); AR and none: [M, N]."""
    return (chunk(M, tp), N) if mode == "rs" else (M, N)
