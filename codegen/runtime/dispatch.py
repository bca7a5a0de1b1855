"""Which BN / CTA group / grid a call uses: simple documented rules, each overridable.

- BN: only a width of the contract's BNS that divides N; 128 when M < 1024 (mode none: M <
  449, where the decode schedule hands over). Otherwise, when
  the persistent grid size is known, the BN whose last wave is fullest wins: cost(BN) =
  ceil(tiles(BN) / CTAs) * BN, the widths above 128 credited 5% for their better MMA
  efficiency (measured on the H200, 2026-11-29: M=2048, N=7168, 132 CTAs: BN 256 = 3.4 waves
  -> 0.86x/0.80x torch.mm, BN 128 = 6.8 waves), the wider on a tie. Without a grid size: BN
  256 (if it divides N) when M >= 2048.
- cta_group 2 when M > 256 (B-tile sharing across a 2-CTA cluster needs at least two M tiles
  per cluster to be worth it), else 1.
- grid: persistent 1-D; at most the SM budget, at most one CTA per GEMM tile, a multiple of
  the cluster size, at least one cluster.
- schedule: 'swapab' (the decode schedule) when M <= SWAPAB_DEFAULT_MAX_M (mode none) or
  SWAPAB_DEFAULT_MAX_M_FUSED (rs/ar), the M fits the group's landing rows and the arch has it,
  with the smallest token tile >= M (rs/ar: at most 128, or one tile of 160 at M 129..160 where
  the arch has it; none: 256 above, and on sm_90a, up
  to M = SWAPAB_DEFAULT_MAX_M_TWO_TILES, two token tiles of 144/160/192/208/224) and cta_group 1
  (mode none with two token tiles: 2, the wide kernel); else 'tile'. A measured tuning table
  (runtime/tuning.py), when one exists for the op's shape, overrides these defaults.
"""
from __future__ import annotations

import math

from codegen.contract import (BM, BNS, MIN_BN, SCHEDULE_ARCHS, SWAPAB_BM, SWAPAB_BNS,
                              SWAPAB_CTA_GROUPS, SWAPAB_EXTRA_BNS, cdiv, swapab_bns,
                              swapab_wide)

BN_256_MIN_M = 2048
#: Largest M the default rule sends to the decode schedule (without a tuning table): mode none
#: (above it the tile schedule is as fast or faster), and rs/ar (FUSED: their token tiles of
#: 128 won against the tile schedule at every M 256..512 and K 768..2304 on two H200s,
#: BENCHMARKS.md 2026-11-30 late, by 1.1x-1.6x).
SWAPAB_DEFAULT_MAX_M = 256
SWAPAB_DEFAULT_MAX_M_FUSED = 512
#: Mode none where the arch has the token tiles 144..224 (sm_90a): up to M = 448 the decode
#: schedule with two of them (the smallest >= M/2) beat the tile schedule's 128-row tiles
#: (one H200, K 768..2304, M 288..384: 0.88x-0.98x torch.mm against 0.65x-0.87x; BENCHMARKS.md
#: 2026-11-30, this session).
SWAPAB_DEFAULT_MAX_M_TWO_TILES = 448
#: rs/ar default token tile cap: above 128 rows the kernel loops over token tiles of 128, so
#: one tile's push overlaps the next one's MMA (128 beat 256 at M 256/512 by 1-20%).
SWAPAB_DEFAULT_MAX_BT_FUSED = 128
#: ...except where one token tile of up to this many rows covers M (sm_90a has 160): at M
#: 129..160 one tile of 160 beat two of 128 by 10-19% (rs) and 1-8% (ar) on two H200s
#: (BENCHMARKS.md 2026-11-30).
SWAPAB_DEFAULT_ONE_TILE_FUSED = 160
CTA_GROUP_2_MIN_M = 257


BN_WIDE_MIN_M = 1024
#: Mode none from M = 449 (past the two-token-tile decode default): the wave rule picks BN 224
#: at M 449..512, which the retuned tables chose there (one H200, K 768..2304: 0.92x-0.98x
#: torch.mm against 0.85x-0.87x with BN 128; BENCHMARKS.md 2026-11-30, this session).
BN_WIDE_MIN_M_NONE = SWAPAB_DEFAULT_MAX_M_TWO_TILES + 1
BN_WIDE_CREDIT = 0.95


def tile_widths(N: int) -> tuple[int, ...]:
    """The tile schedule's BNs usable at N: the contract's widths that divide N."""
    return tuple(bn for bn in BNS if N % bn == 0)


def choose_bn(M: int, N: int, fixed: int | None = None, ctas: int | None = None,
              cluster: int = 1, mode: str = "rs") -> int:
    """BN for a call with M rows; `ctas` is the persistent grid's CTA budget if known."""
    if fixed is not None:
        return fixed
    widths = tile_widths(N) or (MIN_BN,)
    if ctas is None:
        return 256 if M >= BN_256_MIN_M and 256 in widths else MIN_BN
    if M < (BN_WIDE_MIN_M_NONE if mode == "none" else BN_WIDE_MIN_M):
        return MIN_BN

    def cost(bn: int) -> float:
        waves = cdiv(gemm_tiles(M, N, bn, cluster), max(ctas, 1))
        return waves * bn * (BN_WIDE_CREDIT if bn > MIN_BN else 1.0)
    return min(widths, key=lambda bn: (cost(bn), -bn))


def choose_cta_group(M: int, fixed: int | None = None) -> int:
    if fixed is not None:
        return fixed
    return 2 if M >= CTA_GROUP_2_MIN_M else 1


def gemm_tiles(M: int, N: int, bn: int, cluster: int) -> int:
    """ceil(M/128) rounded up to the cluster size, times N/BN."""
    m_tiles = cdiv(cdiv(M, BM), cluster) * cluster
    return m_tiles * (N // bn)


def grid_size(M: int, N: int, bn: int, cluster: int, sm_budget: int, multiple: int = 1) -> int:
    """min(budget rounded down, tiles rounded up) to a multiple of the cluster, >= one cluster.

    `multiple` is meta.json's `launch.min_grid_multiple`; the grid is a multiple of
    lcm(cluster, multiple).
    """
    step = math.lcm(max(cluster, 1), max(multiple, 1))
    budget = (sm_budget // step) * step
    tiles = cdiv(max(gemm_tiles(M, N, bn, cluster), 1), step) * step
    return max(min(budget, tiles), step)


def choose_schedule(M: int, arch: str, land_rows: int, fixed: str | None = None,
                    mode: str = "none") -> str:
    """'swapab' or 'tile' for a call with M rows (see the module docstring)."""
    if fixed is not None:
        return fixed
    if mode != "none":
        top = SWAPAB_DEFAULT_MAX_M_FUSED
    elif SWAPAB_EXTRA_BNS.get(arch, {}).get("none"):
        top = SWAPAB_DEFAULT_MAX_M_TWO_TILES
    else:
        top = SWAPAB_DEFAULT_MAX_M
    if arch in SCHEDULE_ARCHS["swapab"] and M <= min(top, land_rows):
        return "swapab"
    return "tile"


def swapab_token_tile(M: int, fixed: int | None = None,
                      bns: tuple[int, ...] = SWAPAB_BNS) -> int:
    """The smallest token tile of `bns` >= M (the largest above it): the WGMMA N of the decode
    kernel."""
    if fixed is not None:
        return fixed
    return next((bt for bt in bns if bt >= M), bns[-1])


def swapab_default_token_tile(M: int, mode: str, fixed: int | None = None,
                              arch: str = "sm_90a") -> int:
    """The default token tile: the smallest of the (arch, mode) kernels' >= M; rs/ar cap it at
    SWAPAB_DEFAULT_MAX_BT_FUSED unless one tile of up to SWAPAB_DEFAULT_ONE_TILE_FUSED covers M;
    mode none above SWAPAB_DEFAULT_MAX_M (two token tiles): the smallest >= M / 2."""
    rows = cdiv(M, 2) if mode == "none" and M > SWAPAB_DEFAULT_MAX_M else M
    bt = swapab_token_tile(rows, fixed, swapab_bns(arch, mode))
    if fixed is None and mode != "none" and not M <= bt <= SWAPAB_DEFAULT_ONE_TILE_FUSED:
        bt = min(bt, SWAPAB_DEFAULT_MAX_BT_FUSED)
    return bt


def swapab_cta_group(fixed: int | None = None, M: int = 0, mode: str = "rs",
                     arch: str = "sm_90a") -> int:
    """cta_group of the decode kernel without a tuning table (a table's choice wins): 1, but 2
    (the wide kernel, contract.swapab_wide) for mode none with two token tiles (M >
    SWAPAB_DEFAULT_MAX_M) where the arch has it: with the same two token tiles it beat
    cta_group 1 at M 288..448 on one H200 (cold weights, K = 2304: 0.92x-1.04x torch.mm against
    0.80x-0.96x; BENCHMARKS.md, the wide decode kernel). rs/ar: 1; the wide kernel won only at
    a few RS points (K = 2304, M 288..320 and 512), which the tables pick."""
    if fixed is not None:
        return fixed
    two_tiles = mode == "none" and M > SWAPAB_DEFAULT_MAX_M
    return 2 if two_tiles and 2 in SWAPAB_CTA_GROUPS.get(arch, ()) else 1


def swapab_grid(N: int, sm_budget: int) -> int:
    """cta_group 1: one CTA per 64-row W tile, at most the SM budget (the CTAs then loop over W
    tiles), at least one."""
    return max(1, min(sm_budget, N // SWAPAB_BM))


def launch_grid(variant, launch: dict, cluster: int, M: int, N: int, sm_budget: int) -> int:
    """The grid of one launch of `variant` (meta.json `launch` of its kernel, its cluster size)."""
    if variant.schedule == "swapab" and swapab_wide(variant.cta_group):
        # one CTA per (128-row W tile, token tile), looping when the budget is smaller
        return max(1, min(sm_budget, (N // (2 * SWAPAB_BM)) * cdiv(M, variant.bn)))
    if variant.schedule == "swapab":
        return swapab_grid(N, sm_budget)
    return grid_size(M, N, int(launch.get("bn", variant.bn)), cluster, sm_budget,
                     int(launch.get("min_grid_multiple", 1)))


#: default_should_run's bounds (see there).
FUSED_DEFAULT_MAX_DECODE_M = 256
FUSED_DEFAULT_MIN_LARGE_M = 4096
FUSED_DEFAULT_SWAPAB_MAX_K = 2304
FUSED_DEFAULT_MID_MAX_K = 1536
FUSED_DEFAULT_MID_MAX_M = 1023


def default_should_run(M: int, K: int) -> bool:
    """Fused or not for an (M, K) without a tuning table: the pattern measured on two H200s
    (TP2, N 7168, graph-timed against the best of NCCL and torch symm-mem; BENCHMARKS.md,
    docs/results/*tuning*):
    - M <= 256: fused won at every K measured (768..9216): 1.04x-1.75x;
    - M 257..512 (the decode schedule, token tiles of 128): fused won for K <= 2304 (1.07x-1.28x
      at M = 512, 2026-11-30 late) and lost at K 3584/9216 (0.85x-0.98x);
    - M 513..1023 (the tile schedule): fused won for K <= 1536 and lost from K = 2304;
    - M 1024..4095: within +-8% either way (0.91x-1.08x at M = 2048): unfused, the path the
      caller already trusts;
    - M >= 4096: fused won or tied (1.01x-1.49x).
    A tuning table for the shape replaces this rule."""
    if M <= FUSED_DEFAULT_MAX_DECODE_M or M >= FUSED_DEFAULT_MIN_LARGE_M:
        return True
    if M <= SWAPAB_DEFAULT_MAX_M_FUSED:
        return K <= FUSED_DEFAULT_SWAPAB_MAX_K
    return M <= FUSED_DEFAULT_MID_MAX_M and K <= FUSED_DEFAULT_MID_MAX_K
