"""Which BN / CTA group / grid a call uses: simple documented rules, each overridable.

- BN: a width of the (arch, mode) kernels that divides N (contract.tile_widths); rs/ar: where
  160 / 192 and a width of BNS divide N, the wave rule below over every dividing width at every
  M; where only 160 / 192 do, the widest; where none divides N (sm_90a: the last N tile reaches
  past N), the wave rule below over RAGGED_FUSED_BNS at every M. Else 128
  when M < 1024 (mode none: M < 449, where the decode schedule hands over). Otherwise, when
  the persistent grid size is known, the BN whose last wave is fullest wins: cost(BN) =
  ceil(tiles(BN) / CTAs) * BN, the widths above 128 credited 5% for their better MMA
  efficiency (measured on the H200, 2026-11-29: M=2048, N=7168, 132 CTAs: BN 256 = 3.4 waves
  -> 0.86x/0.80x torch.mm, BN 128 = 6.8 waves), the wider on a tie. Without a grid size: BN
  256 (if it divides N) when M >= 2048.
- cta_group 2 when M > 256 (B-tile sharing across a 2-CTA cluster needs at least two M tiles
  per cluster to be worth it), else 1; mode none past the decode rows on sm_90a with the
  budget known: width and cta_group by the wave rule together, cta_group 1 where it costs
  TILE_CG1_PRICE x less (a pair rounds an odd count of row tiles up; choose_tile), or
  TILE_CG1_PRICE_ALIGNED x where the rows are 128-byte lines (twentieth session).
- grid: persistent 1-D; at most the SM budget, at most one CTA per GEMM tile, a multiple of
  the cluster size, at least one cluster.
- schedule: 'swapab' (the decode schedule) when M <= SWAPAB_DEFAULT_MAX_M (mode none) or
  SWAPAB_DEFAULT_MAX_M_FUSED (rs/ar), the M fits the group's landing rows and the arch has it,
  with the smallest token tile >= M (rs/ar: at most 128, or one tile of 160 at M 129..160 where
  the arch has it; none: 256 above, and on sm_90a, up
  to M = SWAPAB_DEFAULT_MAX_M_TWO_TILES, two token tiles of 144/160/192/208/224) and cta_group 1
  (mode none with two token tiles: 2, the wide kernel); else 'tile'. A measured tuning table
  (runtime/tuning.py), when one exists for the op's shape, overrides these defaults.
- mode none at M <= 512 where the arch has the wide decode kernel (sm_90a), nothing fixed and
  no table: the wave-fill rule (choose_none_by_fill) weighs the decode kernels at each token
  tile (cta_group 1, the wide 2 and, since the sixth session of 2026-12-01, the 192-row W tile
  of cta_group 3) and the tile schedule at each width by waves x rows streamed per k-step, the
  rules above winning a tie (of two wide kernels, the one keeping 1.1x the SMs busy or more:
  FILL_BUSY_MARGIN); before it, at small N and long K, the splitk schedule (choose_splitk).
  Where the rows of x or W do not start on 128-byte lines (K % 64 != 0 for contiguous tensors;
  the op reads each call's row strides and addresses) the decode kernels' loads cost more:
  priced FILL_PRICE_UNALIGNED_DECODE x, the tile schedule weighed at every serving width and
  both cta_groups (eighteenth session); since the twentieth session, given K, a model of each
  kernel's L2 -> SM traffic and MMA work decides there instead, splitkw among its options
  (choose_none_unaligned).
- rs/ar at decode sizes where one CTA per 64-row W tile leaves SMs idle (N / 64 < 75% of the
  budget) or needs a second wave (N / 64 > the budget; twenty-second session), nothing fixed
  and no table: the same model weighs the mode's wide decode kernels against that default
  (choose_fused_by_fill).
- mode none where the tile schedule would run (past the decode rows; at an N no multiple of 64
  from M 449), nothing fixed and no table: the splitkw schedule where every (128-row W tile,
  128-token tile) pair gets a cluster at once and K is long enough (choose_none_splitkw;
  fifteenth session). At an N no multiple of 64 the wave-fill rule weighs the wide decode
  kernels up to M 448 (before: one token tile of M's size), and takes splitk first where
  choose_splitk has a choice (sixteenth session: its last 64-row W tile reaches past N).
"""
from __future__ import annotations

import math

from codegen.contract import (BM, BNS, COLLECTIVE_MODES, MIN_BN, N_MULTIPLE_NONE, ROW_LINE_BYTES,
                              SCHEDULE_ARCHS,
                              SPLITK_CTA_GROUPS, SPLITKW_CTA_GROUPS, SPLITKW_W_ROWS, SWAPAB_BM, SWAPAB_BNS, SWAPAB_CTA_GROUPS,
                              SWAPABX_BNS,
                              SWAPAB_EXTRA_BNS, SWAPAB_MAX_ROWS, cdiv, choice_fits_n, decode_fits_n,
                              decode_kernel_exists, schedule_bns, schedule_cta_groups,
                              swapab_bns, swapab_cta_group_bns, swapab_cta_groups, swapab_w_rows,
                              splitk_bns, splitk_min_k, splitk_spread, swapab_wide, tile_ragged_n,
                              tile_widths, tile_widths_serving)
from codegen.contract import STREAMK_MIN_UNITS, streamk_kernel_exists
from codegen.contract import k_tiles as k_tiles_of

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
#: rs/ar's tile widths where none divides N (choose_bn; the last N tile reaches past N, by
#: BN - N % BN columns: at N 1088 64 for 128 and 192, 192 for 256). 160 / 224 were never the best
#: there (fourteenth session)
RAGGED_FUSED_BNS = (128, 192, 256)
RAGGED_FUSED_DEFAULT_BN = 192


def choose_bn(M: int, N: int, fixed: int | None = None, ctas: int | None = None,
              cluster: int = 1, mode: str = "rs", arch: str | None = None) -> int:
    """BN for a call with M rows; `ctas` is the persistent grid's CTA budget if known; given
    `arch`, the (arch, mode) kernels' widths (contract.tile_widths: sm_90a has 160 and 192 too,
    and there, where no width divides N, every width reaches past it), else BNS."""
    if fixed is not None:
        return fixed
    widths = tile_widths(N, arch, mode) or (MIN_BN,)

    def by_waves(ws: tuple[int, ...]) -> int:
        """The width of `ws` whose last wave is fullest (wave_cost, the wider on a tie)."""
        return min(ws, key=lambda bn: (wave_cost(M, N, bn, cluster, ctas), -bn))
    if mode in COLLECTIVE_MODES:
        if not any(N % bn == 0 for bn in widths):
            # rs/ar where no width divides N (N 704, 1088, 4544: the last N tile reaches past
            # N, contract.tile_ragged_n): the wave rule below over RAGGED_FUSED_BNS at every M
            # past the decode rows picked the best or within 4% of it at all 24 points measured
            # (two virtual ranks, N 704 / 1088 / 4544, M 1024..8192; BENCHMARKS.md, fourteenth
            # session); 160 and 224 were never best there
            widths = tuple(bn for bn in widths if bn in RAGGED_FUSED_BNS) or widths
            if ctas is None:   # (no budget known: the width that won most of those points)
                return RAGGED_FUSED_DEFAULT_BN if RAGGED_FUSED_DEFAULT_BN in widths else max(widths)
            return by_waves(widths)
        # rs/ar where only TILE_EXTRA_BNS (160 / 192) divide N (N 2880): the widest at every M:
        # at N 2880 192 beat or tied 160 at all 16 points (two virtual ranks, K 1536 / 4096, M
        # 1024..8192; 160 lost up to 22% at M 1024), also where the wave price below favoured
        # 160 (BENCHMARKS.md, thirteenth session)
        base = tuple(bn for bn in widths if bn in BNS)
        if not base:
            return max(widths)
        if len(base) < len(widths) and ctas is not None:
            # ...where an extra width and one of BNS divide N (N 3072, 4608, 5120, 6144, 7680):
            # the wave rule over every dividing width at every M past the decode rows, as at a
            # ragged N: on two virtual ranks it came within 5% of the best width at all 70
            # points (30 held out: 0.997 geometric mean, BNS-only rule below 0.980, worst 0.89;
            # fourteenth session). Elsewhere (N 7168: BNS only) the rule below, measured across
            # two GPUs, is unchanged
            return by_waves(widths)
        widths = base
    # MIN_BN where it divides N; else (N no multiple of 128, contract.N_MULTIPLE) the smallest
    # width that does (224 for N a multiple of 224)
    narrow = MIN_BN if MIN_BN in widths else min(widths)
    if ctas is None:
        return 256 if M >= BN_256_MIN_M and 256 in widths else narrow
    if M < (BN_WIDE_MIN_M_NONE if mode == "none" else BN_WIDE_MIN_M):
        return narrow
    if mode == "none" and arch is not None:
        # mode none where the tile kernels reach past N (sm_90a): the wave rule over every
        # width, also where one divides N (seventeenth session, one H200, K 2368..6400: at 8
        # shapes it was fitted on it picked the fastest width at 23 of 24 points, the dividing
        # width's pick 1.12x-1.72x slower where they differed; at 8 random shapes held out the
        # 18 points it moved ran 1.01x-1.37x faster, geometric mean 1.12x, none slower)
        widths = tile_widths_serving(N, arch, mode) or widths
    return by_waves(widths)


def choose_cta_group(M: int, fixed: int | None = None) -> int:
    if fixed is not None:
        return fixed
    return 2 if M >= CTA_GROUP_2_MIN_M else 1


#: Mode none's tile schedule past the decode rows (choose_tile): cta_group 1 weighed against 2
#: by the wave rule, each wave of CTAs without the pair's W multicast priced this much more
#: (eighteenth session: fitted on 55 points at M 449..1200, nearly all with rows off the 128-byte
#: lines, where the W rows a pair shares cost twice).
TILE_CG1_PRICE = 1.2
#: ...and where x's and W's rows are 128-byte lines (twentieth session, one H200, call 4: every
#: candidate at 16 random shapes with K a multiple of 64 x M 576 / 640 / 704 / 896): at an odd
#: count of 128-row tiles the pair's padding tile cost more than its multicast saved; 1.2 scored
#: 0.911 of the best candidate there (37 of 64 points below 0.93; the dispatch 0.854x torch.mm
#: against the best's 0.938x), 1.1 scored 0.988 (4 below 0.93), 1.0 0.989. Held out (call 5, 16
#: fresh random aligned shapes x M 600 / 850 / 1100 / 1400): the 37 of 64 points it moved all
#: won, 1.08x-1.23x (geometric mean 1.149x; 0.842x -> 0.967x torch.mm); below 0.9x torch.mm 50
#: -> 26 of 64 (BENCHMARKS.md, twentieth session).
TILE_CG1_PRICE_ALIGNED = 1.1


def choose_tile(M: int, N: int, fixed_bn: int | None = None, fixed_cg: int | None = None,
                ctas: int | None = None, mode: str = "rs", arch: str | None = None,
                aligned: bool = True) -> tuple[int, int]:
    """(BN, cta_group) of the tile schedule for a call with M rows: choose_cta_group, then
    choose_bn at that cluster; for mode none past the decode rows on an arch whose tile kernels
    reach past N (sm_90a), nothing fixed and the CTA budget known, the width and cta_group
    together by the wave rule: a pair (cta_group 2) rounds M's 128-row tiles up to an even
    count, which at an odd count (M 513..640, 769..896, ...) can leave a wave mostly empty.
    `aligned`: whether x's and W's rows are 128-byte lines (TILE_CG1_PRICE_ALIGNED, else
    TILE_CG1_PRICE)."""
    cg = choose_cta_group(M, fixed_cg)
    if (mode != "none" or fixed_bn is not None or fixed_cg is not None or ctas is None
            or arch is None or M < BN_WIDE_MIN_M_NONE or not tile_ragged_n(arch, mode)):
        return choose_bn(M, N, fixed_bn, ctas, cg, mode, arch), cg

    def cost(option: tuple[int, int]) -> float:
        bn, c = option
        price = TILE_CG1_PRICE_ALIGNED if aligned else TILE_CG1_PRICE
        return wave_cost(M, N, bn, c, ctas) * (price if c == 1 else 1.0)
    options = [(choose_bn(M, N, None, ctas, c, mode, arch), c) for c in (2, 1)]
    return min(options, key=lambda o: (cost(o), -o[1], -o[0]))


def wave_cost(M: int, N: int, bn: int, cluster: int, ctas: int) -> float:
    """The tile schedule's time under the wave rule: waves of the CTAs a grid of at most `ctas`
    holds (whole clusters, as grid_size) x BN, a width past MIN_BN credited BN_WIDE_CREDIT
    (choose_bn, choose_tile)."""
    waves = cdiv(gemm_tiles(M, N, bn, cluster), max(cluster, (ctas // cluster) * cluster))
    return waves * bn * (BN_WIDE_CREDIT if bn > MIN_BN else 1.0)


def gemm_tiles(M: int, N: int, bn: int, cluster: int) -> int:
    """ceil(M/128) rounded up to the cluster size, times ceil(N/BN) (the last N tile may reach
    past N: contract.tile_ragged_n)."""
    m_tiles = cdiv(cdiv(M, BM), cluster) * cluster
    return m_tiles * cdiv(N, bn)


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
                              arch: str = "sm_90a", cta_group: int | None = None) -> int:
    """The default token tile: the smallest of the (arch, mode) kernels' >= M (of those with a
    fixed `cta_group`: cta_group 3 has a few); rs/ar cap it at SWAPAB_DEFAULT_MAX_BT_FUSED unless
    one tile of up to SWAPAB_DEFAULT_ONE_TILE_FUSED covers M; mode none above
    SWAPAB_DEFAULT_MAX_M (two token tiles): the smallest >= M / 2."""
    rows = cdiv(M, 2) if mode == "none" and M > SWAPAB_DEFAULT_MAX_M else M
    bns = (swapab_bns(arch, mode) if cta_group is None
           else swapab_cta_group_bns(arch, mode, cta_group) or swapab_bns(arch, mode))
    bt = swapab_token_tile(rows, fixed, bns)
    if fixed is None and mode != "none" and not M <= bt <= SWAPAB_DEFAULT_ONE_TILE_FUSED:
        bt = min(bt, SWAPAB_DEFAULT_MAX_BT_FUSED)
    return bt


def swapab_cta_group(fixed: int | None = None, M: int = 0, mode: str = "rs",
                     arch: str = "sm_90a", N: int | None = None) -> int:
    """cta_group of the decode kernel without a tuning table (a table's choice wins): 1, but 2
    (the wide kernel, contract.swapab_wide) for mode none with two token tiles (M >
    SWAPAB_DEFAULT_MAX_M) where the arch has it: with the same two token tiles it beat
    cta_group 1 at M 288..448 on one H200 (cold weights, K = 2304: 0.92x-1.04x torch.mm against
    0.80x-0.96x; BENCHMARKS.md, the wide decode kernel). rs/ar: 1; the wide kernel won only at
    a few RS points (K = 2304, M 288..320 and 512), which the tables pick. Given N, the wide
    kernel only where it serves N (contract.decode_fits_n)."""
    if fixed is not None:
        return fixed
    two_tiles = mode == "none" and M > SWAPAB_DEFAULT_MAX_M
    wide = 2 in SWAPAB_CTA_GROUPS.get(arch, ()) and (N is None or decode_fits_n(N, 2, arch))
    if wide and N is not None and not decode_fits_n(N, 1, arch):
        return 2   # (N no multiple of 64, mode none on sm_90a: only the wide kernels serve it)
    return 2 if two_tiles and wide else 1


#: A splitk cluster size is taken (splitk_default, choose_splitk) only where each of its CTAs
#: gets at least this many k-tiles (fewer, and the handoff costs more than the split saves).
SPLITK_MIN_K_TILES_PER_CTA = 16


def splitk_default(M: int, K: int, fixed_bn: int | None = None,
                   fixed_cta_group: int | None = None, arch: str = "sm_90a",
                   mode: str = "none", schedule: str = "splitk") -> tuple[int, int]:
    """(token tile, cta_group) of a splitk (or, `schedule` 'splitkw', splitkw) call with nothing
    else to go by: the smallest token tile >= M of the (arch, mode) kernels of the schedule
    (splitk: at most 128, or 192 for mode none on sm_90a; more rows loop over tiles of the
    largest; splitkw: of SPLITKW_MODEL_TILES, more rows loop over tiles of SPLITKW_RULE_BT, the
    one with the most stages measured past the decode rows), and the largest cluster whose CTAs
    each get SPLITK_MIN_K_TILES_PER_CTA k-tiles (else the smallest that fits K)."""
    bns = schedule_bns(arch, mode, schedule)
    if schedule == "splitkw":
        bns = tuple(b for b in bns if b in SPLITKW_MODEL_TILES) or bns
        if M > bns[-1]:
            bns = (SPLITKW_RULE_BT,)
    bt = swapab_token_tile(M, fixed_bn, bns)
    if fixed_cta_group is not None:
        return bt, fixed_cta_group
    k_tiles = k_tiles_of(K)
    cgs = schedule_cta_groups(arch, schedule)
    roomy = [c for c in cgs if k_tiles >= SPLITK_MIN_K_TILES_PER_CTA * c]
    return bt, max(roomy) if roomy else min(cgs)


def swapabx_default(M: int, fixed_bn: int | None = None, fixed_cta_group: int | None = None,
                    arch: str = "sm_90a", mode: str = "none") -> tuple[int, int]:
    """(token tile, cta_group) of a swapabx call with nothing else to go by: the smallest token
    tile >= M of the (arch, mode) kernels (more rows loop over tiles of the largest) and
    clusters of 2 (a cluster of 4 holds fewer SMs at once: 30 x 4 of the H200's 132)."""
    bt = swapab_token_tile(M, fixed_bn, schedule_bns(arch, mode, "swapabx"))
    return bt, fixed_cta_group if fixed_cta_group is not None else 2


def splitk_units(M: int, N: int, bn: int, arch: str, mode: str) -> int:
    """Work items of a splitk kernel, one cluster each: a 64-row W tile (ceil(N / 64): the last
    one may reach past N, contract.splitk_ragged_n), or (where the kernel spreads its token
    tiles, contract.splitk_spread) a (W tile, token tile) pair."""
    tiles = cdiv(N, SWAPAB_BM)
    return tiles * cdiv(M, bn) if splitk_spread(arch, mode) else tiles


def splitk_grid(N: int, sm_budget: int, ksplit: int, max_clusters: int | None = None,
                units: int | None = None) -> int:
    """splitk: a cluster of `ksplit` CTAs per work item (`units`, splitk_units; default N / 64
    W tiles), at most sm_budget // ksplit clusters and at most the clusters the device holds at
    once (`max_clusters`: a cluster that has to wait for another to finish doubles the kernel's
    time); they loop over work items beyond it; at least one."""
    clusters = min(sm_budget // ksplit, cdiv(N, SWAPAB_BM) if units is None else units)
    if max_clusters is not None:
        clusters = min(clusters, max_clusters)
    return ksplit * max(1, clusters)


def splitkw_units(M: int, N: int, bn: int) -> int:
    """Work items of a splitkw kernel, one cluster each: a (128-row W tile, token tile) pair,
    ceil(N / 128) W tiles (the last one may reach past N): the wide decode kernel's pairs."""
    return swapab_wide_units(M, N, bn, SPLITKW_W_ROWS // SWAPAB_BM)


def swapabx_units(N: int, cta_group: int) -> int:
    """Work items of a swapabx kernel, one cluster each: a group of cta_group neighbouring
    64-row W tiles (N a multiple of 64), the last group's spare CTAs without one."""
    return cdiv(N // SWAPAB_BM, cta_group)


def swapab_wide_units(M: int, N: int, bn: int, cta_group: int) -> int:
    """Work items of a wide decode kernel (cta_group 2 / 3): one per (W tile of 64 x cta_group
    rows, token tile); ceil(N / W rows) W tiles (cta_group 3: the last one may reach past N)."""
    return cdiv(N, swapab_w_rows(cta_group)) * cdiv(M, bn)


def swapab_grid(N: int, sm_budget: int) -> int:
    """cta_group 1: one CTA per 64-row W tile, at most the SM budget (the CTAs then loop over W
    tiles), at least one."""
    return max(1, min(sm_budget, N // SWAPAB_BM))


def launch_grid(variant, launch: dict, cluster: int, M: int, N: int, sm_budget: int,
                max_clusters: int | None = None, K: int | None = None) -> int:
    """The grid of one launch of `variant` (meta.json `launch` of its kernel, its cluster size;
    `max_clusters`: how many of its clusters the device holds at once, if known; K: the
    streamk grid's)."""
    if variant.schedule == "streamk":
        return streamk_grid(M, N, K, variant.bn, cluster, sm_budget, max_clusters)
    if variant.schedule == "swapab" and swapab_wide(variant.cta_group):
        # one CTA per work item, looping when the budget is smaller
        return max(1, min(sm_budget, swapab_wide_units(M, N, variant.bn, variant.cta_group)))
    if variant.schedule == "swapab":
        return swapab_grid(N, sm_budget)
    if variant.schedule == "splitk":
        return splitk_grid(N, sm_budget, variant.cta_group, max_clusters,
                           splitk_units(M, N, variant.bn, variant.arch, variant.mode))
    if variant.schedule == "splitkw":
        return splitk_grid(N, sm_budget, variant.cta_group, max_clusters,
                           splitkw_units(M, N, variant.bn))
    if variant.schedule == "swapabx":
        return splitk_grid(N, sm_budget, variant.cta_group, max_clusters,
                           swapabx_units(N, variant.cta_group))
    return grid_size(M, N, int(launch.get("bn", variant.bn)), cluster, sm_budget,
                     int(launch.get("min_grid_multiple", 1)))


#: The streamk rule (mode none, sm_90a; thirtieth session): at three row tiles (M 321..384 by
#: STREAMK_MIN_M) the rules' pick of a tile kernel in CTA pairs (cta_group 2) pads a fourth row
#: tile, a quarter of its MMA work wasted; streamk192 in clusters of three along M (each CTA
#: loading 64 W rows and multicasting them, the last waves' k-tiles spread) takes its place.
#: One H200, rows off the lines: fitted on call 5, where the rules picked tile192/224/256 in
#: pairs streamk192c3 ran 0.985x-1.21x them (1.104x at 10 points; N 15872 K 11768 M 336 0.80x ->
#: 0.96x torch.mm); where they picked a decode kernel or cta_group 1 it lost (0.74x-0.87x
#: against 0.86x-0.97x), so only the pairs are replaced. Held out (call 6, 16 fresh shapes
#: where the rules pick a pair at M 352 / 384): 1.105x the rule off (0.989x-1.240x, faster at
#: 15), 0.782x -> 0.864x torch.mm. No shape with rows on the lines picked a pair there (none
#: of 14 drawn), so it is unmeasured with them. A plain stream-K rule (streamk256
#: in cta_group 1 at the same rows) lost when held out (0.969x): BENCHMARKS.md. STREAMK_RULE
#: False: off (probes).
STREAMK_RULE = True
STREAMK_ROW_TILES = 3
STREAMK_MIN_M = 321
STREAMK_RULE_CHOICE = ("streamk", 192, 3)


def streamk_instead(M: int, choice: tuple[str, int, int], arch: str) -> tuple[str, int, int]:
    """STREAMK_RULE_CHOICE where the streamk rule replaces `choice` (the rules' pick for a
    mode-none call with M rows), else `choice`. The caller checks that the kernel loads."""
    if (STREAMK_RULE and arch in SCHEDULE_ARCHS["streamk"] and choice[0] == "tile"
            and choice[2] == 2 and cdiv(M, BM) == STREAMK_ROW_TILES and M >= STREAMK_MIN_M):
        return STREAMK_RULE_CHOICE
    return choice


def streamk_default(M: int, bn: int | None = None, cta_group: int | None = None) -> tuple[int, int]:
    """(BN, cta_group) of an op fixed to the streamk schedule: the fixed ones, else the cluster
    whose CTAs cover the row tiles without a padded one (3: BN 192; 4, 2: BN 256; else 1) among
    the kernels of the fixed width or cta_group (contract.streamk_kernel_exists)."""
    rows = cdiv(M, BM)
    for b, c in ((192, 3), (256, 4), (256, 2), (256, 1), (192, 1)):
        if ((bn is None or b == bn) and (cta_group is None or c == cta_group)
                and rows % c == 0 and streamk_kernel_exists(b, c)):
            return b, c
    b = bn if bn is not None else (192 if cta_group == 3 else 256)
    return b, cta_group if cta_group is not None else 1


def streamk_grid(M: int, N: int, K: int | None, bn: int, cluster: int, sm_budget: int,
                 max_clusters: int | None = None) -> int:
    """CTAs of a streamk launch: every cluster the budget (and the device, `max_clusters`)
    holds at once, all resident (a CTA waits for another's partial tile), but no more than
    give each STREAMK_MIN_UNITS k-tiles (K None: as many as the budget holds)."""
    clusters = sm_budget // cluster
    if max_clusters is not None:
        clusters = min(clusters, max_clusters)
    if K is not None:
        work = cdiv(cdiv(M, BM), cluster) * cdiv(N, bn)
        clusters = min(clusters, work * k_tiles_of(K) // STREAMK_MIN_UNITS)
    return max(1, clusters) * cluster


#: The wave-fill rule for mode none at decode sizes (choose_none_by_fill): the most token tiles
#: a wide decode CTA grid may split M into (as the tuning sweep's candidates,
#: tuning.MAX_TOKEN_TILES).
FILL_MAX_TOKEN_TILES = 8


def token_tile_span(M: int, bns: tuple[int, ...], most: int = FILL_MAX_TOKEN_TILES) -> list[int]:
    """The token tiles of `bns` (ascending) a call with M rows may be cut into: from the one
    that covers M (swapab_token_tile) down to M / `most` (at most `most` token tiles)."""
    top = swapab_token_tile(M, bns=bns)
    return [bt for bt in bns if bt <= top and bt * most >= M]


def fill_options(M: int, N: int, arch: str, bns: tuple[int, ...] | None = None,
                 cta_groups: tuple[int, ...] | None = None,
                 widths: tuple[int, ...] | None = None,
                 unaligned: bool = False) -> list[tuple[str, int, int]]:
    """Every (schedule, bn, cta_group) the wave-fill rule weighs for a mode-none call with M rows
    (M <= contract.SWAPAB_MAX_ROWS): the decode kernel with one CTA per 64-row W tile
    (cta_group 1) at each token tile from the smallest >= M down to M / FILL_MAX_TOKEN_TILES,
    the wide decode kernels (cta_group 2: 128-row W tiles; 3: 192 rows, at its token tiles) at
    the same token tiles (`cta_groups`: only these, for probes), and the tile schedule at each
    width serving N (past N too: contract.tile_ragged_n) at cta_group 2 and 1 (with
    FILL_TILE_EVERY_WIDTH False, as before the twenty-fourth session on aligned rows: each
    width dividing N at choose_cta_group's). The rules before this one come first
    (up to M = SWAPAB_DEFAULT_MAX_M_TWO_TILES their decode default, above it the tile schedule,
    widest first), so a tie keeps what they chose. `bns`: the token tiles to weigh (default:
    every one the arch's mode-none kernels have); `widths`: the tile widths (default: every
    one of the arch's mode-none kernels that serves N). `unaligned`: x's or W's rows are not
    whole 128-byte lines (rows_aligned; FILL_PRICE_UNALIGNED_DECODE): the tile options as
    above whatever FILL_TILE_EVERY_WIDTH says (since the eighteenth session)."""
    tts = token_tile_span(M, swapab_bns(arch, "none") if bns is None else bns)
    every = unaligned or FILL_TILE_EVERY_WIDTH
    if widths is None:
        # (before the twenty-fourth session only widths dividing N where rows are aligned: one
        # reaching past N, contract.tile_ragged_n, had not been measured against the decode
        # kernels there)
        widths = (tile_widths_serving(N, arch, "none") if every else
                  tuple(bn for bn in tile_widths(N, arch, "none") if N % bn == 0))
    tiles = [("tile", bn, cg) for bn in sorted(widths, reverse=True)
             for cg in ((2, 1) if every else (choose_cta_group(M),))]
    if M <= SWAPAB_DEFAULT_MAX_M_TWO_TILES:   # the rules' decode default first
        opts = [("swapab", swapab_default_token_tile(M, "none", arch=arch),
                 swapab_cta_group(None, M, "none", arch, N))]
    else:
        opts = list(tiles)
    for cg in swapab_cta_groups(arch, "none"):
        if (cta_groups is None or cg in cta_groups) and decode_fits_n(N, cg, arch):
            opts += [("swapab", bt, cg) for bt in tts if ("swapab", bt, cg) not in opts
                     and decode_kernel_exists(arch, "none", bt, cg)]
    return opts + [t for t in tiles if t not in opts]


#: The wave-fill model's prices (fill_cost), fitted on one H200 to every sweep that timed all
#: candidates at M <= 512 (202 points: N 1024..16384, K 768..14336; BENCHMARKS.md 2026-12-01
#: fifth session, docs/results/2026-12-01_h200_splitk/rule_regret.py): a decode work unit that
#: streams 336 or more rows per k-step (W rows + token tile: the wide kernel's token tiles of
#: 208+) costs 1.4x per row, 320 or more (wide 192, cta_group 1's 256) 1.25x; the tile
#: schedule at these sizes 1.35x (partial row tiles, one tile per CTA). Fitted on half the
#: points, they improved the other half either way round. They were fitted as the price of
#: those kernels' 3 / 4 pipeline stages, but a stage more for each (the epilogue in passes,
#: contract.decode_epi_tokens; sixth session) changed their time by +0.6% to +3% (geometric
#: mean per token tile, 6 shapes x 3 M): the price is the big token tiles', not their pipeline
#: depth's (priced by stages, the deeper kernels drew picks that measured 0.73x-0.80x torch.mm
#: where the fifth session's picks measured 0.80x-0.95x). (rows per k-step at least, price):
FILL_PRICE_DECODE = ((336, 1.4), (320, 1.25))
#: Twenty-fourth session (one H200; the tile kernels have had the grouped order and the deferred,
#: interleaved stores since the fifth session's fit): 1.35 -> 1.25, with the tile schedule weighed
#: at every width serving N and at both cta_groups on aligned rows too (FILL_TILE_EVERY_WIDTH; as
#: off the lines since the eighteenth session). Fitted on call 2 (20 random shapes x M 16..512,
#: every candidate timed, worse of warm and cold; 72 points on aligned rows): 0.961 -> 0.981 of
#: the best there (10 points moved, all at N >= 6400 and M 256..512, where the wide decode
#: kernels' waves lost to the tile schedule's cta_group 1 at three row tiles, or to a width past
#: N: 0.81-0.96 -> 0.95-1.06 x torch.mm); each change alone: 0.963 / 0.968. Every point of the
#: earlier sessions' sets (231, mostly rows off the lines) unchanged. Held out: BENCHMARKS.md.
FILL_PRICE_TILE = 1.25
FILL_TILE_EVERY_WIDTH = True
#: ... but FILL_PRICE_TILE_PARTIAL where M's last 128-row tile holds at most this many rows (a
#: multiple of 16: op.prepare's kernels, one per 16 rows, stay the ones a call takes). Held out
#: twice (calls 3 and 5, 176 points): at M 408 / 409 / 416 / 448 (the last row tile 24..64 rows
#: full) the 1.25 price moved 8 points to the tile schedule and they measured 0.85x-1.01x of
#: the wide decode kernels (geometric mean 0.91x), at M 314 / 320 0.97x; replayed on both with
#: 1.35 there: 1.035x -> 1.041x and 1.009x -> 1.012x the rule before, the fit unchanged. Held
#: out (call 6, 10 fresh random aligned shapes it moves, N 6400..7360, M 392..448): the 30
#: points it moved all won, 1.073x (1.03x-1.17x; 0.899x -> 0.965x torch.mm).
FILL_TILE_PARTIAL_ROWS = 64
FILL_PRICE_TILE_PARTIAL = 1.35
#: Where a row of x / W is not a whole number of 128-byte lines (K % 64 != 0: rows_aligned), each
#: TMA box row spans two lines. One H200 (eighteenth session, call 4; N 7168 / 7232, M 160): the
#: decode kernels ran 1.8x-2.0x slower (warm weight; 1.6x cold) at K 2360 / 2312 than at K 2304
#: / 2368, the tile kernel 1.12x, torch.mm 1.2x. There the wave-fill model prices the decode
#: kernels this much more and weighs the tile schedule at every width serving N and at both
#: cta_groups, a pair's W rows counted once per CTA (its multicast): fitted to calls 2-3 (56
#: points at M <= 512, 24 random shapes, every candidate timed, worse of warm and cold): 0.869
#: -> 0.930 of the best candidate (geometric mean); left out one shape at a time, the rule
#: fitted to the other 23 scored 0.929 on it (better at 15 shapes, worse at 5: 0.74x-0.92x of
#: the rule before at N 1128 / 4264 / 5984 / 6504 / 13056). Aligned rows keep the model above.
FILL_PRICE_UNALIGNED_DECODE = 1.4


def rows_aligned(K: int) -> bool:
    """Whether bf16 rows K elements apart (a contiguous row of K, or a row stride of K) start
    on 128-byte lines."""
    return (2 * K) % ROW_LINE_BYTES == 0


#: The decode prices of rs/ar's wave-fill rule (choose_fused_by_fill): their big token tiles cost
#: less than mode none's. Each work unit of the fused decode kernels pushes and reduces its own
#: rows, so fewer, bigger units pay less exchange (twenty-second session: fitted to calls 1-2,
#: 100 points on two / four virtual ranks of one H200, every candidate timed: rows >= 336 at
#: 1.1-1.2 scored 0.977 of the best candidate against mode none's 1.4's 0.956; docs/results/
#: 2026-12-02_h200_twentysecond/fit.py).
FUSED_FILL_PRICE_DECODE = ((320, 1.15),)


def _fill_price(option: tuple[str, int, int], decode_prices=None,
                tile_price: float | None = None) -> float:
    schedule, bn, cg = option
    if schedule != "swapab":
        return FILL_PRICE_TILE if tile_price is None else tile_price
    rows = swapab_w_rows(cg) + bn
    prices = FILL_PRICE_DECODE if decode_prices is None else decode_prices
    return next((price for least, price in prices if rows >= least), 1.0)


def fill_cost(option: tuple[str, int, int], M: int, N: int, sm_budget: int,
              priced: bool = True, unaligned: bool = False, decode_prices=None,
              tile_price: float | None = None) -> float:
    """Relative time of one option under the wave-fill model: waves x rows loaded per k-step of
    one work unit. Work units: a 64-row W tile for every token tile (decode, cta_group 1: the
    CTA loops over its token tiles), a (128-row W tile, token tile) pair (the wide decode
    kernel), a 128-row x BN tile (tile schedule); waves = ceil(units / CTAs that fit). At decode
    sizes a unit's time follows the rows it streams per k-step (W rows + token rows), and the
    slowest SM sets the kernel's time. Calibrated on one H200 (BENCHMARKS.md, 2026-12-01 fourth
    session: N 2048..16384, the measured best candidate at M 16..512 for 5 shapes); `priced`:
    times the FILL_PRICE_* of its rows per k-step or schedule (fifth session). `unaligned` (x's
    or W's rows not whole 128-byte lines): FILL_PRICE_UNALIGNED_DECODE on the decode kernels, a
    tile pair's W rows counted once per pair (eighteenth session). `decode_prices` /
    `tile_price`: the decode kernels' prices instead of FILL_PRICE_DECODE, the tile
    schedule's instead of FILL_PRICE_TILE / FILL_PRICE_TILE_PARTIAL (rs/ar:
    FUSED_FILL_PRICE_DECODE, FUSED_FILL_PRICE_TILE)."""
    units, per_unit, slots = _fill_units(option, M, N, sm_budget, unaligned)
    cost = cdiv(max(units, 1), max(slots, 1)) * per_unit
    if not priced:
        return cost
    if tile_price is None and option[0] == "tile" and 0 < M % BM <= FILL_TILE_PARTIAL_ROWS:
        tile_price = FILL_PRICE_TILE_PARTIAL
    return cost * _fill_price(option, decode_prices, tile_price) * (
        FILL_PRICE_UNALIGNED_DECODE if unaligned and option[0] == "swapab" else 1.0)


def _fill_units(option: tuple[str, int, int], M: int, N: int, sm_budget: int,
                multicast: bool = False) -> tuple[int, int, int]:
    """(work units, rows per k-step of one, units that run at once) of a fill option;
    `multicast`: a tile pair's (cta_group 2) W rows split between its two CTAs."""
    schedule, bn, cg = option
    if schedule == "swapab" and cg == 1:
        return N // SWAPAB_BM, cdiv(M, bn) * (SWAPAB_BM + bn), sm_budget
    if schedule == "swapab":
        return swapab_wide_units(M, N, bn, cg), swapab_w_rows(cg) + bn, sm_budget
    return (gemm_tiles(M, N, bn, cg), BM + (bn // cg if multicast else bn),
            max(cg, (sm_budget // cg) * cg))


def fill_busy(option: tuple[str, int, int], M: int, N: int, sm_budget: int) -> int:
    """SMs (CTAs) an option keeps busy in its first wave: the wave-fill rule's tie-break."""
    units, _, slots = _fill_units(option, M, N, sm_budget)
    return min(units, slots)


def swapab_wide_option(option: tuple[str, int, int]) -> bool:
    """Whether a fill option is a wide decode kernel (cta_group 2 / 3)."""
    return option[0] == "swapab" and swapab_wide(option[2])


#: The wave-fill rule's tie-break (choose_none_by_fill; seventh session, one H200): where the
#: model prices two wide decode options the same (a 128-row W tile x token tile T and a 192-row
#: one x T - 64 stream the same rows per k-step), the one with this many times the busy SMs or
#: more. At the memory-bound M = 116..139 (N 10368..12672, 75..99 CTAs -> 100..132) and at M
#: 272..470 (N 4864..6144, +11% to +33% CTAs) it measured 1.01x-1.14x; where the CTAs were within
#: 2% (N 7168 M 412, N 8320 M 389) 0.96x-0.99x; between cta_group 1 and a wide kernel (N 3968..
#: 5120, M 81..94: 66..80 CTAs -> 99..120) 0.95x-0.99x, so only wide options take part.
FILL_BUSY_MARGIN = 1.1


#: When the wave-fill rule takes the splitk schedule (choose_splitk), fitted on one H200 (mode
#: none, N 1024..4096, K 1024..14336, M 1..256, the worse of warm and cold weights) and checked
#: at 8 shapes it was not fitted to (BENCHMARKS.md 2026-12-01 fifth session): splitting K paid
#: where the decode kernel had few W tiles for the SMs and long ones: clusters of 4 (N <= 1920)
#: 1.3x-2.7x up to M = 128, clusters of 2 (N 2048..3328) 1.05x-1.5x up to M = 64 (a wash at M
#: 96..128); nothing or a loss at N >= 4096, at K <= 2368 (the handoff then costs more than the
#: split saves) and past one token tile (M > 128: a handoff per token tile). The bounds were
#: widened to N 3584 / K 2816 after call 7's random shapes (N 2944 K 3008: 1.16x; N 3328 K 4544:
#: 1.37x). Clusters of 4 up to M = 192 since the splitk token tiles 160 / 192 (sixth session, 6
#: shapes N 1024..1792 x M 144..192: 0.41x-0.92x -> 0.82x-1.05x torch.mm, never slower; clusters
#: of 2 with them at N 2048..3072 were not faster, so 2 stays at M <= 64).
#: Eighth session (one H200, clusters of 2 against the dispatch at M 1 / 16 / 64): fitted on N
#: 2048..3584 x K 1536..2752, splitting K paid from K = 2048 (1.05x-1.41x; at K 1536 1.15x at M
#: = 1 but 0.98x-1.01x at M 16 / 64), so the bound went from 44 k-tiles to 32; at 8 held-out
#: random shapes the three it moves measured 1.04x-1.34x (BENCHMARKS.md, eighth session). The
#: spread clause below keeps 44 (it was fitted at K >= 3072).
#: Ninth session (one H200, clusters of 2 against the dispatch, N 2048..3584 x K 1600..1984 x M
#: 1 / 16 / 64): 1.14x-1.26x at M = 1, 1.00x-1.07x at M = 16, 0.99x-1.08x at M = 64, so clusters
#: of 2 from 25 k-tiles (K > 1536; at K 1536 the eighth session saw 0.98x-1.01x at M 16 / 64);
#: 24 held-out points (8 random shapes, N 1600..2944) 0.93x-1.20x the old pick, geometric mean
#: 1.09x (BENCHMARKS.md, ninth session). Clusters of 4 keep 16 k-tiles per CTA (K > 4032).
#: Tenth session: the eighth and ninth fits were made against a decode kernel slowed by 0.5-1.2
#: us (the ragged-K commit's k-tile count changed its SASS; restored, templates/sm90_swapab.py.j2).
#: Against the restored kernel (one H200, worse of warm and cold; 120 points N 1536..3584 x K
#: 1600..5120 x M 1/16/32/64, and 24 at 8 random shapes N 1344..3008, K 1568..2736, mostly no
#: multiple of 64, whose misaligned rows slow the one-CTA-per-W-tile kernel more) the bound that
#: picked best over both sets was 34..39 k-tiles (geometric mean of pick / better of the two
#: 0.994-0.996, worst point 0.91x; 25: 0.974, worst 0.84x; 44: 0.987, worst 0.86x). 36, held out
#: at 8 more random shapes (24 points): 1.018x the old bound's picks (0.92x-1.16x), 0.983 of the
#: better of the two; every point at 34..35 k-tiles (six, over both random sets) took splitk
#: 1.03x-1.09x faster, so the bound is 34 (K > 2112; that last step is not held out).
#: Seventeenth session: the handoff lost its 2 KS + 2 MEMBAR.ALL.GPU per tile (splitk c2 0.7-0.9
#: us, c4 1.3-3.1 us faster), and the bounds were refitted against the dispatch of the bounds
#: before (one H200, worse of warm and cold, shapes chosen before the run): clusters of 2 at N
#: 2048..3584 x 20..32 k-tiles x M 1 / 16 / 64 measured 0.93x-1.10x torch.mm against the decode
#: kernel's 0.87x-1.04x (better at 23 of 30 points, at most 4% worse at the others); clusters of 4
#: at N 768..1792 x 32..60 k-tiles x M 1..128 won all 32 points, 1.00x-2.67x torch.mm against
#: 0.79x-1.96x for the pick before (clusters of 2 or the decode kernels); held out: BENCHMARKS.md,
#: seventeenth session.
SPLITK_MAX_W_TILES = 56          # N / 64 at most (N <= 3584) ...
#: k-tiles at least per cluster size: 2 from K > 1216, 4 from K > 1984 (before: 34 / 64)
SPLITK_MIN_K_TILES = {2: 20, 4: 32}
#: ... and up to 64 W tiles (N 3648..4096, within the 66 clusters of 2 an H200 holds) from this
#: many k-tiles (K > 3520). Tenth session, one H200, N 3712..4096 x K 2816..14336 x M 1/16/32/64
#: against the decode kernel: from K 3584 geometric mean 1.047x (64 points, 0.95x-1.23x; at K
#: 7168 0.95x-1.04x), at K 2816 0.94x-1.08x. Held out at 6 random shapes (N 3648..3840, K
#: 4024..16280, 18 points): 1.115x the decode kernel (0.99x-1.23x).
#: Twenty-third session (the seventeenth session's cheaper handoff; one H200, the worse of warm
#: and cold; N 3712 / 3840 / 3968 / 4096 x K 1280..3520 x M 1 / 16 / 32 / 64, clusters of 2 at
#: M's token tile against the dispatch): from 32 k-tiles splitk won at every M (geometric means
#: per K and M 1.02x-1.23x, worst point 1.00x), below it at M <= 32 mostly (0.98x-1.14x) but lost
#: at M 64 (0.95x-1.00x): the bound went from 56 k-tiles to 32 (K > 1984).
SPLITK_WIDE_MAX_W_TILES = 64
SPLITK_WIDE_MIN_K_TILES = 32
#: ... and below that bound, down to SPLITK_MIN_K_TILES, for M up to this many rows (mode
#: none only). Twenty-third session call 4 (one H200, worse of warm and cold, N 3712..4096 x K
#: 1280 / 1536 / 1792 = 20..28 k-tiles, clusters of 2 at M's token tile against the dispatch's
#: decode kernel): per K, geometric means 1.05x-1.07x at M 1, 1.00x-1.01x at M 16, 1.08x-1.11x
#: at M 32 (worst point 0.98x), but 0.97x-0.98x at M 64. rs/ar: never measured where a cluster
#: per W tile of these N fits one wave (only one rank per GPU leaves room for it), so not there.
SPLITK_WIDE_SHORT_K_MAX_M = {"none": 32}
SPLITK_SPREAD_MIN_K_TILES = 25   # ... for the spread clause (K > 1536; before: 44)
SPLITK_MAX_M = {4: 192, 2: 64}   # per cluster size (4: 128 until token tiles 160 / 192)
#: ... and clusters of 2 up to M = 128 (token tile 128) where K has at least
#: SPLITK_LONG_K_TILES k-tiles (sixteenth session, one H200, worse of warm and cold). Fitted on 6
#: shapes chosen before the run (N 2048..3904, K 2304..8192, M 72 / 96 / 112 / 128, against the
#: dispatch's wide / cta_group 1 decode kernels or splitkw): from 64 k-tiles 0.99x-1.50x (N 3904 K
#: 5000 M 112: 0.67x -> 1.00x torch.mm), at 48 k-tiles 0.96x-1.01x, at 36 0.93x-0.96x. Held out
#: at 6 more (16 points the bound takes, N 2560..3584): 1.00x-1.24x; the two held-out shapes at 41 /
#: 47 k-tiles would have gained too (1.02x-1.40x): the bound is not lowered on them.
#: Seventeenth session (the cheaper handoff): from 36 k-tiles (N 2048..3328, 36..56 k-tiles, M 80 /
#: 112 / 128: 0.89x-1.14x torch.mm against the decode kernels' 0.78x-1.02x, 11 of 12 points).
SPLITK_LONG_K_MAX_M = {2: 128}
SPLITK_LONG_K_TILES = 36
#: Past those, where the splitk kernels spread (W tile, token tile) pairs over their clusters
#: (contract.splitk_spread; seventh session): clusters of 2 at token tile 128 for M 129..512
#: wherever every pair gets a cluster at once (N / 64 * ceil(M / 128) <= the clusters the
#: device holds). One H200, 8 small-N shapes x M 176..512 (K 3072..14336): where the pairs fit,
#: 0.99x-1.53x the fill rule's wide kernel (N 1152 K 12352 M 336: 0.66x -> 0.96x torch.mm);
#: where they did not (72+ pairs for 66 clusters: two waves), 0.5x-0.8x of it.
#: Seventeenth session (the cheaper handoff; one H200, worse of warm and cold): from 25 k-tiles
#: (fitted on 6 shapes at 25..42 k-tiles, N 512..2048 x M 160..448: where the pairs fit, clusters
#: of 2 0.81x-0.95x torch.mm against the decode kernels' 0.75x-0.96x, at most 2% slower at 3 of
#: 16 points), and clusters of 4 first where every pair gets one of those (at most 30 on an
#: H200; from 32 k-tiles, SPLITK_MIN_K_TILES): 1.04x-1.33x over the pick before at 7 points (N
#: 640 K 4096 M 256: 0.92x -> 1.22x torch.mm), also before one token tile of 160 / 192 in
#: clusters of 4. Held out: BENCHMARKS.md, seventeenth session.
SPLITK_SPREAD_BT = 128
SPLITK_SPREAD_FIRST_KS = 4   # tried before the one-token-tile choice (None: never)...
SPLITK_SPREAD_KS = 2         # ... and after it


#: Small N and short K (twenty-fifth session, one H200, mode none, worse of warm and cold): at
#: most SPLITK_SHORT_MAX_W_TILES 64-row W tiles (then 30, N <= 1920: a cluster of 4 per W tile
#: fits one wave) and SPLITK_SHORT_K_TILES k-tiles (13..35, below SPLITK_LONG_K_TILES), M up to
#: SPLITK_SHORT_MAX_M, the rules above left most SMs idle: clusters of 2 at one token tile (from
#: 20 k-tiles), else the decode kernels (N / 64 CTAs or fewer). Every candidate timed at 8
#: random shapes (N 704..1856, K 1024..2104, half off the 128-byte lines) x M 1 / 16 / 48 / 80 /
#: 128 / 176: the best was always a splitk kernel, and the cheapest under splitk_short_cost
#: among the splitk options whose (W tile, token tile) pairs fit one wave of their clusters
#: (token tiles up to SPLITK_SHORT_MAX_BT: 160 / 192 in clusters of 4 lost to 128 in clusters of
#: 2 at M 176) scored 0.997 of the best where the dispatch scored 0.890 (48 points; the
#: twenty-fourth session's 18 such points: 0.995 against 0.906). Past 35 k-tiles the model lost
#: (more token tiles re-read a long W: 0.65x-0.70x at 150+ k-tiles). Held out (call 2, 10 fresh
#: random shapes x M 1..192): 79 of 90 points moved, 1.154x, 0.877 -> 0.995 of the best. Then M
#: up to 384 (before: 192), fitted on call 2's same shapes at M 224..384 (0.918 -> 0.977 of the
#: best; 24 moved, 1.107x). BENCHMARKS.md, twenty-fifth session. Twenty-sixth session: M up to
#: SWAPAB_MAX_ROWS (512; before: 384): a random sweep (its call 1) had the tile pair at N 640 /
#: 704, M 512 (four 128-row token tiles: 40 / 44 pairs in clusters of 2, one wave) at 0.77 / 0.71
#: of the clause's splitk128c2, the best candidate there. Held out (call 2: 8 fresh shapes at N
#: 512..960 x M 392..512): 28 of 32 points moved, 1.105x (24 won; 0.95x-0.96x at N 960 K 1152
#: M 480 / 512 against the decode kernel), 0.990 of the best candidate (BENCHMARKS.md).
#: Twenty-seventh session: up to 66 W tiles (before: 30, N <= 1920; 66 clusters of 2 fill an
#: H200's 132 SMs, so past it nothing fits one wave): a random sweep (call 1) had the decode
#: kernel at N 2504 / 4152, K 1064 / 904, M 16 at 0.69 / 0.81 of the clause's splitk16c2 and N
#: 3840 K 1920 M 40 at 0.87 of splitk64c2; the pooled replay moved 16 points 1.078x (0.95x-0.97x
#: at M 128 below 18 k-tiles). Held out (call 2: 12 random N 2224..3920 x K 1216..2176 x M 16 /
#: 24 / 56 / 96 / 128): 28 of 60 moved, 1.047x (18 won; 0.92x-0.97x at M 96 / 128 where K has 19
#: .. 26 k-tiles: N 3136 K 1216, N 2304 K 1344, N 3776 K 1664), 0.995 of the best candidate.
SPLITK_SHORT_MAX_W_TILES = 66
SPLITK_SHORT_K_TILES = (13, SPLITK_LONG_K_TILES)   # [from, to)
SPLITK_SHORT_MAX_M = SWAPAB_MAX_ROWS
SPLITK_SHORT_MAX_BT = 128
#: ... the handoff's price per token row and extra CTA of the cluster, in k-tile rows (fitted:
#: 0 -> 0.974 of the best, 1 -> 0.997, 2 -> 0.996, 3 -> 0.990)
SPLITK_SHORT_HANDOFF = 1.0
SPLITK_SHORT_MODES = ("none",)


def splitk_short_cost(k_tiles: int, bt: int, ks: int) -> float:
    """The small-N clause's price of splitk at token tile `bt` in clusters of `ks` (one wave of
    (W tile, token tile) pairs): the rows one CTA streams per k-step (64 W rows + bt tokens)
    times its k-tiles, plus the handoff of its partial (SPLITK_SHORT_HANDOFF per token row and
    extra CTA)."""
    return (SWAPAB_BM + bt) * cdiv(k_tiles, ks) + SPLITK_SHORT_HANDOFF * bt * (ks - 1)


def choose_splitk_short(M: int, N: int, K: int, arch: str, sm_budget: int,
                        cluster_slots: dict[int, int], mode: str = "none"
                        ) -> tuple[str, int, int] | None:
    """The small-N, short-K clause of choose_splitk (see SPLITK_SHORT_*): of the splitk token
    tiles up to SPLITK_SHORT_MAX_BT a call may be cut into (token_tile_span) and the cluster
    sizes the op can load, those whose pairs get a cluster each at once, the cheapest by
    splitk_short_cost (ties: the smaller cluster, then the larger token tile); None outside its
    bounds or where no option fits one wave (the rules after it decide)."""
    tiles, k_tiles = cdiv(N, SWAPAB_BM), k_tiles_of(K)
    if (mode not in SPLITK_SHORT_MODES or not splitk_spread(arch, mode)
            or tiles > SPLITK_SHORT_MAX_W_TILES or M > SPLITK_SHORT_MAX_M
            or not SPLITK_SHORT_K_TILES[0] <= k_tiles < SPLITK_SHORT_K_TILES[1]):
        return None
    bts = [bt for bt in token_tile_span(M, splitk_bns(arch, mode)) if bt <= SPLITK_SHORT_MAX_BT]
    best = None
    for ks in sorted((ks for ks in cluster_slots if ks in SPLITK_CTA_GROUPS
                      and K >= splitk_min_k(ks))):
        room = min(cluster_slots[ks], sm_budget // ks)
        for bt in sorted(bts, reverse=True):
            if tiles * cdiv(M, bt) > room:
                continue
            cost = splitk_short_cost(k_tiles, bt, ks)
            if best is None or cost < best[0]:
                best = (cost, ("splitk", bt, ks))
    return best and best[1]


def splitk_max_m(ks: int, k_tiles: int) -> int:
    """The most rows choose_splitk serves with one token tile in clusters of `ks`:
    SPLITK_MAX_M, or SPLITK_LONG_K_MAX_M where K has SPLITK_LONG_K_TILES k-tiles."""
    long_k = SPLITK_LONG_K_MAX_M.get(ks, 0) if k_tiles >= SPLITK_LONG_K_TILES else 0
    return max(SPLITK_MAX_M.get(ks, 0), long_k)


def choose_splitk(M: int, N: int, K: int, arch: str, sm_budget: int,
                  cluster_slots: dict[int, int], spread: bool = True, mode: str = "none"
                  ) -> tuple[str, int, int] | None:
    """The splitk choice of the wave-fill rule, or None where it does not pay (see above): M's
    token tile with the largest cluster size the op can load (`cluster_slots`: cluster size ->
    clusters the device holds at once, for this rank) whose clusters cover every W tile in one
    wave and whose K has that size's SPLITK_MIN_K_TILES k-tiles, for M up to splitk_max_m (and
    the mode's largest splitk token tile);
    past it, where the kernels spread their token tiles (`spread` False: never, for probes; the
    mode's kernels must spread: mode none on sm_90a),
    clusters of SPLITK_SPREAD_FIRST_KS (before the one-token-tile choice) or SPLITK_SPREAD_KS
    (after it) at token tile SPLITK_SPREAD_BT where they give every (W tile, token tile) pair
    one at once. Before all of that, at small N and short K (mode none),
    choose_splitk_short's choice where it has one (twenty-fifth session; `spread` False: not,
    as before it). rs/ar (FUSED_SPLITK) call it with their `mode`."""
    tiles, k_tiles = cdiv(N, SWAPAB_BM), k_tiles_of(K)
    bns = splitk_bns(arch, mode)
    if arch not in SCHEDULE_ARCHS.get("splitk", ()):
        return None
    # small N, short K (mode none): the cheapest option that fits one wave (SPLITK_SHORT_*)
    short = choose_splitk_short(M, N, K, arch, sm_budget, cluster_slots, mode) if spread else None
    if short is not None:
        return short
    if tiles > SPLITK_WIDE_MAX_W_TILES or (
            tiles > SPLITK_MAX_W_TILES and k_tiles < SPLITK_WIDE_MIN_K_TILES
            and M > SPLITK_WIDE_SHORT_K_MAX_M.get(mode, 0)):
        return None
    # (the first read of cluster_slots: an op's LazySlots loads the kernels here)
    room = {ks: min(slots, sm_budget // ks) for ks, slots in cluster_slots.items()
            if ks in SPLITK_CTA_GROUPS and k_tiles >= SPLITK_MIN_K_TILES[ks]}
    bt = SPLITK_SPREAD_BT

    def spreads(ks: int | None) -> bool:
        return (ks is not None and spread and splitk_spread(arch, mode)
                and bt < M <= SWAPAB_MAX_ROWS and k_tiles >= SPLITK_SPREAD_MIN_K_TILES
                and splitk_units(M, N, bt, arch, mode) <= room.get(ks, 0))

    if spreads(SPLITK_SPREAD_FIRST_KS):
        return "splitk", bt, SPLITK_SPREAD_FIRST_KS
    fits = [ks for ks, clusters in room.items() if tiles <= clusters]
    if bns and fits and M <= min(splitk_max_m(max(fits), k_tiles), bns[-1]):
        return "splitk", swapab_token_tile(M, None, bns), max(fits)
    if spreads(SPLITK_SPREAD_KS):
        return "splitk", bt, SPLITK_SPREAD_KS
    return None


def splitkw_one_wave(M: int, N: int, ks: int, sm_budget: int, slots: dict[int, int],
                     bt: int | None = None) -> bool:
    """Whether every (128-row W tile, `bt`-token tile; default SPLITKW_RULE_BT) pair of a
    splitkw call gets a cluster of `ks` at once: at most the clusters the device holds (`slots`)
    and the SM budget allows (choose_none_splitkw takes it only then; the model weighs the
    other token tiles only then, splitkw_small_tile_fits)."""
    return splitkw_units(M, N, bt or SPLITKW_RULE_BT) <= min(slots[ks], sm_budget // ks)


def fill_rule_applies(arch: str) -> bool:
    """Whether mode none on `arch` dispatches by the wave-fill rule (it needs the wide decode
    kernel: sm_90a); elsewhere the rules before it decide and splitk is never picked."""
    return 2 in SWAPAB_CTA_GROUPS.get(arch, ())


#: The fill rule at an N no multiple of 64 (mode none, sm_90a). From the fifteenth session it
#: decided such N only up to two token tiles (SWAPAB_DEFAULT_MAX_M_TWO_TILES, M 448); past them
#: the rules' tile schedule past N ran, never measured against the wide decode kernels or
#: splitk there. Twenty-seventh session (one H200, every candidate timed, worse of warm and
#: cold): at 6 random small N (600..1720, short K) x M 448 / 480 / 512 the rules' pick ran 0.65x-
#: 0.85x torch.mm where the best candidate (splitk / the wide decode kernel, which the fill rule
#: picks at M 448) ran 0.78x-0.91x; with the bound at every decode row the pooled replay moved
#: 13 points 1.086x (losses of 0.98x-0.995x only where the fill rule picked another tile width
#: than the rules, N >= 3824). Held out (call 2: 16 random N no multiple of 64, 528..11384, x M
#: 449 / 480 / 512): 28 moved, 1.135x (23 won; torch.mm 0.776x -> 0.881x where moved); the losses
#: again where the fill rule picked the tile schedule at another width (N 10288 K 3024: tile192c2
#: for the rules' tile160c2, 0.87x-0.92x). So past M 448 a tile pick of the fill rule goes back
#: to the rules' (FILL_RAGGED_TILE_TO_RULES; the pooled replay with it: every loss but N 1592 K
#: 1896 M 449, 0.96x, gone, every gain kept). choice_ab rule `ragged26` sets both back.
FILL_RAGGED_MAX_M = SWAPAB_MAX_ROWS
FILL_RAGGED_TILE_TO_RULES = True


def fill_rule_decides(M: int, N: int, arch: str, land_rows: int) -> bool:
    """Whether choose_none_by_fill decides a mode-none call of M rows (else the rules after it):
    the arch has the rule (fill_rule_applies), M is within the decode rows the op lands
    (SWAPAB_MAX_ROWS, land_rows), N a multiple of N_MULTIPLE_NONE, and an N no multiple of 64
    only up to FILL_RAGGED_MAX_M rows (M 448 until the twenty-seventh session; past two token
    tiles choose_none_by_fill still leaves a tile-schedule pick to the rules:
    FILL_RAGGED_TILE_TO_RULES)."""
    if not fill_rule_applies(arch) or M > min(SWAPAB_MAX_ROWS, land_rows) or N % N_MULTIPLE_NONE:
        return False
    return not (N % SWAPAB_BM and M > FILL_RAGGED_MAX_M)


def ragged_wide_past_one_wave(option: tuple[str, int, int], M: int, N: int,
                              sm_budget: int) -> bool:
    """Whether `option` is the wide decode kernel (cta_group 2) with its last 128-row W tile past
    N (N = 64 mod 128; contract.swapab_ragged_n) and more (W tile, token tile) pairs than
    `sm_budget` CTAs. choose_none_by_fill leaves such options out (choose_fused_by_fill weighs no
    wide kernel past N at all). Mode none on one H200, twelfth
    session: at 16 random (N = 64 mod 128, K, M <= 512) where the ragged kernel moved the fill
    rule's pick, it measured 1.01x-1.20x the pick without it at the 11 points whose pairs fit one
    wave, and 0.73x-1.02x at the other 5 (N 9024..14144, M 297..506: 213..333 pairs; three lost
    19%-27%). Multi-wave wide picks are the model's weakest case at N = 0 mod 128 too (the
    earlier sweeps' 14: 0.86x-1.0x the best candidate). This bound was drawn after those 16
    points; BENCHMARKS.md (twelfth session) has its own held-out check."""
    schedule, bt, cg = option
    return (schedule == "swapab" and cg == 2 and N % swapab_w_rows(cg) != 0
            and swapab_wide_units(M, N, bt, cg) > sm_budget)


#: The swapabx rule (choose_swapabx; nineteenth session, one H200, mode none, the worse of warm
#: and cold weights): where x's or W's rows are not 128-byte lines, the cta_group 1 decode
#: kernel in clusters of 4 sharing each x tile ran 1.10x-1.15x torch.mm at N 4096 / 7168, K
#: 4104 / 2360, M 128..160 (the dispatch before: tile / splitk, 0.78x-0.91x; the same kernel
#: without clusters 0.59x-0.84x), 0.96x at N 7168 M 64 (0.71x); clusters of 2 where those of 4
#: need a second wave (N 8192: 32 groups of 4, 30 held at once) 0.90x-0.98x (0.86x-0.96x). Where
#: the rows are 128-byte lines the clusters lost (0.74x-0.95x against 0.96x-1.02x without), and
#: at M 256 / 512 the tile schedule won (0.93x-1.03x against 0.84x / 0.72x): x is then a small
#: part of the traffic against the MMA work. Measured from 64 W tiles (N 4096) and M 64.
#: Held out (call 4, 12 random shapes N 4416..8192 x 4 M in 33..192): 1.24x the rule without it
#: (geometric mean, 48 points; 0.77x -> 0.96x torch.mm), losing only at N 4416 (69 W tiles) M
#: 64 / 88 (0.83x / 0.79x), as at N 4096 M 64 in call 2 (clusters of 4 0.81x, splitk 0.87x):
#: below SWAPABX_FULL_W_TILES W tiles the rule waits for M > SWAPABX_SMALL_N_MIN_M (N 4096 /
#: 4416 at M 128..172 won 1.10x-1.24x; N 5440, 85 W tiles, at M 64 / 88 1.21x / 1.25x). That
#: bound was set after the held-out test and is not itself held out. The lower M bound: call 7
#: held out M 25 / 28 / 32 at 12 random shapes (N 5120..8448): M 32 won at all 12 (1.00x-1.17x,
#: geometric mean 1.08x), M 25 / 28 lost (0.95x / 0.96x; 0.83x-1.10x), so from 32 (29..31 not
#: measured).
SWAPABX_MIN_M = 32
SWAPABX_MAX_M = 192
SWAPABX_MIN_W_TILES = 64
SWAPABX_FULL_W_TILES = 80
SWAPABX_SMALL_N_MIN_M = 97


def choose_swapabx(M: int, N: int, sm_budget: int, slots: dict[int, int] | None,
                   unaligned: bool) -> tuple[str, int, int] | None:
    """('swapabx', token tile, cluster size) for a mode-none call whose x or W rows are not
    128-byte lines, at SWAPABX_MIN_M <= M <= SWAPABX_MAX_M and N a multiple of 64 with at least
    SWAPABX_MIN_W_TILES W tiles (SWAPABX_FULL_W_TILES below M = SWAPABX_SMALL_N_MIN_M): the
    largest cluster whose groups of W tiles fit one wave of
    the clusters the device holds at once (`slots`, op.swapabx_slots) and the budget allows
    (N 8192: 32 groups of 4 on 30 clusters of 4 would take two, so clusters of 2); None
    otherwise (and without slots: no swapabx kernel loadable). Past one wave of clusters of 2
    (N > 8448 on an H200) the held-out test ran it 0.56x-1.23x the rule without it (a second
    round of clusters where the tile schedule balances its tiles; BENCHMARKS.md, nineteenth
    session), so it is not taken there."""
    if not unaligned or not slots or not SWAPABX_MIN_M <= M <= SWAPABX_MAX_M or N % SWAPAB_BM:
        return None
    tiles = N // SWAPAB_BM
    if tiles < SWAPABX_MIN_W_TILES or (tiles < SWAPABX_FULL_W_TILES
                                       and M < SWAPABX_SMALL_N_MIN_M):
        return None
    bt = swapab_token_tile(M, None, SWAPABX_BNS)
    for xm in sorted(slots, reverse=True):
        if swapabx_units(N, xm) <= min(slots[xm], sm_budget // xm):
            return "swapabx", bt, xm
    return None


#: Mode none where x's or W's rows are not 128-byte lines (rows_aligned; twentieth session): a
#: cost model of the L2 -> SM traffic that the nineteenth session found sets those kernels' time
#: (each box row then spans two lines), weighing every kernel the fill rule weighs there (the
#: decode kernels at each token tile and W tile, the tile schedule at every width serving N and
#: both cta_groups) and splitkw in clusters of 2 / 4; choose_splitk's measured bounds still go
#: first. Per work unit and k-step (64 columns of K), in rows of 128 bytes: a CTA's time is
#: max(rows it receives x UNALIGNED_ROW_COST, its MMA's W rows x token rows /
#: UNALIGNED_MMA_PER_ROW) times its k-steps (a K split: 1 / cluster size of them) plus, for a
#: split, UNALIGNED_HANDOFF x the rows of its partial tile over K's k-steps; the kernel's,
#: max(waves of units x that, the L2 share (unaligned_l2_share) x the rows all CTAs read from L2
#: per k-step / the SM budget), a pair's W rows read once (its multicast). Fitted on one H200 to
#: the 85 points at M <= 512 where every candidate was timed (eighteenth session calls 2-3,
#: twentieth call 1; 77 with K % 64 != 0; the worse of warm and cold weights): the op's pick
#: 0.924 -> 0.958 of the best candidate (geometric mean; below 0.93 of it: 29 -> 15 of 83); left
#: out one shape at a time, 0.956 (`docs/results/2026-12-02_h200_twentieth/fit.py`). Held out
#: (BENCHMARKS.md, twentieth session): 32 fresh points with every candidate timed, 0.910 -> 0.931
#: of the best; an A/B at 24 fresh shapes x 8 M (192 points, 79 moved): 1.077x the rule before on
#: the moved points (0.84x..1.50x; 46 won, 24 lost), 0.801x -> 0.826x torch.mm over all. Examples
#: (fit set, share of the best): the tile pair at three 128-row tiles (M 257..384, rounded up to
#: four) -> the wide decode kernel at two token tiles of 160 (N 13056 K 7008 M 312: 0.72 -> 1.0);
#: splitkw at long K where the decode kernels leave SMs idle or read W twice (N 2976 K 16160 M
#: 200: 0.66 -> 1.0; N 6416 K 12120 M 64: 0.77 -> 1.0). Its losses on the held-out points: the
#: tile schedule's width within a cta_group, and cta_group 1 at one 128-row tile (M 120 at 3
#: shapes: 0.77x-0.83x -> 0.69x-0.76x torch.mm), which the model does not price apart.
#: Twenty-sixth session: the decode kernels' price 1.8 -> 1.6, refitted on every point with rows
#: off the lines where every candidate was timed since the eighteenth session (355 points, 8
#: calls of 7 sessions: docs/results/2026-12-03_h200_twentysixth/fit.py; with the small-N clause
#: up to M 384 as it was then): 0.964 -> 0.969 of the best (below 0.9 of it: 46 -> 35); 27 points
#: moved, 1.070x (the tile pair at M 200..512 and N 1408..3536 gave way to the decode kernel at
#: 64..112-row token tiles: 0.76-0.90 -> 0.99-1.0 of the best; lost: cta_group 3 at M 45 / 64, N
#: >= 14360, 0.90-0.99 of the best); the tile price and the other constants moved nothing worth
#: the name (a grid of 225 settings: at most 0.9694). Held out (call 2, 14 fresh shapes off the
#: lines at M where it moves): at M 180..494 and N 576..3728, 28 moved, 1.172x (25 won; lost N
#: 1520 K 2504 M 290..410 to splitkw, 0.87x-0.96x); at M 62..160 and N 8896..16208, 14 moved,
#: 1.014x (9 won; cta_group 3 / the 144..160-row token tiles 0.95x-0.97x at 4). BENCHMARKS.md,
#: twenty-sixth session.
UNALIGNED_ROW_COST = {"tile": 1.2, "decode": 1.6}
UNALIGNED_MMA_PER_ROW = 48
UNALIGNED_L2_SHARE = 2.5
UNALIGNED_HANDOFF = 0.25
#: Where every row starts on a 32-byte L2 sector (K % 16 == 0: rows 32, 64 or 96 bytes off the
#: lines), twenty-eighth session: the L2 share above is UNALIGNED_L2_SHARE_SECTOR_ROWS and the
#: row prices (UNALIGNED_ROW_COST) UNALIGNED_SECTOR_ROW_FACTOR times theirs. A 128-byte box row
#: then touches 4 sectors (of two lines); at 16 bytes off (K % 16 == 8), where the prices were
#: fitted (344 of the 519 pooled points with rows off the lines), every other row touches 5. One
#: H200, the worse of warm and cold, every candidate timed
#: (docs/results/2026-12-03_h200_twentyeighth/fit.py replays it): at first the share alone, 2.5
#: -> 2.0 (fit on 519 points: rows on sectors 0.937 / 0.945 of the best candidate -> 0.966 /
#: 0.970, the 16-byte points unchanged at 0.983), held out on 79 fresh points (call 1): 22 moved,
#: 1.144x (20 won), yet 0.946 of the best there, and the share the fit left flat over 1.25..2.0
#: scored 0.964 at 1.75 and 0.946 at 2.0 on them. Refitted on the 177 fit points on sectors alone
#: (not call 1): the share 1.5 with the prices x 0.75, 0.967 -> 0.981 of the best (below 0.9 of
#: it: 18 -> 8); on call 1 (then held out from it) 0.946 -> 0.976 (16 -> 6 below 0.9); left out
#: one call at a time, every call's moved points won (1.06x-1.15x). Held out (call 2: 14 fresh
#: random shapes on sectors x M 64..512, 108 points, every candidate): 53 moved against the rule
#: before, 1.10x / 1.12x (45 won; 0.926 -> 0.975 of the best; tile pairs giving way to the wide
#: decode kernel, N 4216 K 13552 M 320: 0.59 -> 1.0; lost: N 5424 K 11168 M 256 to splitkw in
#: clusters of 4, 0.90 -> 0.79), and 32 against the share 2.0 alone, 1.07x. An unbiased sweep of
#: 12 random shapes x 8 M (call 3; every K class) moved 3 of 96, 1.025x. The op reads whether a
#: call's rows lie on sectors from its strides and addresses (op._plan: `sectors`); without that,
#: K's.
UNALIGNED_L2_SHARE_SECTOR_ROWS = 1.5
UNALIGNED_SECTOR_ROW_FACTOR = 0.75
#: Whether choose_none_by_fill uses that model (probes turn it off to time the rule before it).
UNALIGNED_MODEL = True

#: Mode none where only x's rows are off the 128-byte lines and W's are on them (a weight
#: re-laid once into rows of whole lines, tp_linear.weight_in_aligned_rows: RowParallelLinear's
#: default at K % 64 != 0), twenty-first session, one H200, the worse of warm and cold weights
#: (docs/results/2026-12-02_h200_twentyfirst, call 2: 12 shapes x M 16 / 64 / 176 / 384, the
#: same values laid out three ways): the L2-traffic model above, fitted where both are off,
#: priced W's rows as off too and ran 0.926x torch.mm (geometric mean; 17 of 48 points below
#: 0.9x); the rules of rows on the lines at the same call 0.980x, and with choose_swapabx's
#: choice first (clusters sharing each x tile, which won where x's rows are off: N 7168 K 2360
#: M 64 / 176, 0.97x / 0.99x against 0.88x / 0.78x) 0.983x (7 below 0.9x); re-laying both
#: 1.051x, so the remaining gap is x's rows. (Copying x into a re-laid buffer before each call
#: cost more than it saved: 0.884x.) Held out (call 3, 14 fresh random shapes x 7 M in
#: 24..448): 0.949x -> 1.025x torch.mm against the choice before it on the same layout (below
#: 0.9x: 34 -> 13 of 98); both re-laid 1.087x, contiguous 0.891x. False: the model decides as
#: for both off (probes).
WEIGHT_ON_LINES_RULE = True
#: A candidate, off (held out, a wash): with only x's rows off the lines, the model's pick where
#: it is splitkw, before the rows-on-lines rules. Call 5 (every candidate with W re-laid, 12
#: fresh random shapes x M 96 / 176 / 256): WEIGHT_ON_LINES_RULE's pick 0.952 of the best
#: candidate, 0.969 with this (10 moved, 7 won: N 4048 K 11664 M 256, 0.82x -> 0.99x torch.mm;
#: 3 lost, at M 96: N 8056 K 3856, 1.01x -> 0.92x). Held out (call 6, 14 fresh shapes where it
#: moves x M 96 / 176 / 256 / 352): 16 of 56 points moved, 1.019x (10 won, 6 lost, 0.91x-1.15x;
#: the losses at M 96), so it stays off. choice_ab.py's rule `relaidsplitkw` turns it on
#: (`--relay-weight`).
WEIGHT_ON_LINES_SPLITKW = False

#: Where the model above decides (W's rows off the lines), the most rows at which
#: choose_splitk's choice, per cluster size, still goes before it (twenty-first session, one
#: H200; the worse of warm and cold weights; docs/results/2026-12-02_h200_twentyfirst/fit.py):
#: at the 35 points at M <= 512 with every candidate timed where choose_splitk had a choice, its
#: spread clause (clusters of 2 at token tile 128, M > 128) ran 0.80 of the best candidate
#: against the model's pick's 0.99 (the model better at 12 of 13, mostly splitkw in clusters of
#: 4: N 1144 K 16152 M 250, 0.69 -> 1.0). Its clusters of 2 at M 65..128 (the long-K clause)
#: lost to the model's pick at 3 of 4 points but won 1.50x over the rule before the model at N
#: 3904 K 5000 M 112 (tests/test_splitk_dispatch.py), and up to M 64 won 2 of 3; its clusters of
#: 4 beat the model's pick at 14 of 16 (N 976 K 15024 M 120: 1.0 against 0.68): those stay first.
#: Twenty-ninth session: clusters of 2 first up to M 64 (was 128). Past it they yield to the
#: model's splitkw in clusters of 4 (at token tile 96 or 128 there): held out at 10 points in
#: its call 3 (M 96..128), 9 won or tied, 0.998x-1.36x; lost N 3184 K 2672 M 120 (0.89x).
UNALIGNED_SPLITK_FIRST_MAX_M = {2: 64, 4: SWAPAB_MAX_ROWS}
#: ... and past those M, the (schedule, cluster size) of the model's picks it yields to: splitkw
#: with clusters of 4 (K split four ways: every fit point above where the model won). Held out
#: (call 3, 12 fresh small-N shapes x M 144..400, yielding to any pick): the 14 points where the
#: model took splitkw in clusters of 4 won 1.00x-1.32x but one (N 744: 0.96x / 0.99x), those
#: where it took splitkw in clusters of 2 or the decode kernel lost (N 1936..2008, 0.77x-0.99x:
#: splitk's 64-row W tiles spread the same split over twice the CTAs); fitted to that call.
#: Held out in call 4 (14 fresh small-N shapes off the lines x M 144..400, against the rule
#: before the session): 23 of 56 points moved, 1.134x (0.86x-1.47x; 0.784x -> 0.890x torch.mm),
#: losing only at short K (N 1120 K 2168, N 1160 K 3600 at M 200..288: 0.86x-0.97x).
UNALIGNED_SPLITK_YIELDS_TO = (("splitkw", 4),)


def sector_rows(K: int) -> bool:
    """Whether bf16 rows K elements apart start on 32-byte L2 sectors."""
    return (2 * K) % 32 == 0


def on_sectors(K: int, sectors: bool | None = None) -> bool:
    """Whether the L2-traffic model prices a call's rows as starting on 32-byte sectors:
    `sectors` (the call's layout, op._plan) where given, else K's: rows K bf16 columns apart,
    on sectors and off the lines (where K's rows are on the lines and the call's are not, a
    layout K does not explain, not: the prices fitted at 16 bytes off)."""
    return (sector_rows(K) and not rows_aligned(K)) if sectors is None else sectors


def unaligned_l2_share(K: int, sectors: bool | None = None) -> float:
    """The L2-traffic model's share (UNALIGNED_L2_SHARE, or UNALIGNED_L2_SHARE_SECTOR_ROWS where
    every row starts on a 32-byte sector: on_sectors)."""
    return UNALIGNED_L2_SHARE_SECTOR_ROWS if on_sectors(K, sectors) else UNALIGNED_L2_SHARE


def unaligned_options(M: int, N: int, K: int, arch: str, sm_budget: int,
                      splitkw_slots: dict[int, int] | None) -> list[tuple[str, int, int]]:
    """What unaligned_cost weighs for a mode-none call with rows off the lines: fill_options'
    (without the wide kernel past N beyond one wave, ragged_wide_past_one_wave), then splitkw at
    each cluster size the op can load (`splitkw_slots`: cluster size -> clusters the device holds
    at once) where K has the k-tiles its rule was measured to need (SPLITKW_MIN_K_TILES), where
    it serves N."""
    opts = [o for o in fill_options(M, N, arch, unaligned=True)
            if not ragged_wide_past_one_wave(o, M, N, sm_budget)]
    opts += [("splitkw", bt, ks) for ks in SPLITKW_CTA_GROUPS
             for bt in schedule_bns(arch, "none", "splitkw")
             if ks in SPLITKW_MODEL_TILES.get(bt, ())
             and ks in (splitkw_slots or {}) and K >= splitk_min_k(ks)
             and k_tiles_of(K) >= SPLITKW_MIN_K_TILES[ks]
             and choice_fits_n(N, "splitkw", bt, ks, arch, "none")
             and (bt == SPLITKW_RULE_BT or splitkw_small_tile_fits(M, N, bt, ks, sm_budget,
                                                                  splitkw_slots))]
    return opts


def splitkw_small_tile_fits(M: int, N: int, bt: int, ks: int, sm_budget: int,
                            slots: dict[int, int]) -> bool:
    """Whether the model weighs splitkw at token tile `bt` (not SPLITKW_RULE_BT): where it
    serves M in at most SPLITKW_MODEL_MAX_TILES tiles and every (W tile, token tile) pair gets
    a cluster at once (see SPLITKW_MODEL_TILES)."""
    return (cdiv(M, bt) <= SPLITKW_MODEL_MAX_TILES and ks in slots
            and splitkw_one_wave(M, N, ks, sm_budget, slots, bt))


def unaligned_cost(option: tuple[str, int, int], M: int, N: int, K: int, sm_budget: int,
                   slots: dict[int, int] | None = None, sectors: bool | None = None) -> float:
    """Relative time of a swapab / tile / splitkw `option` under the model above (rows of 128
    bytes per k-step); `slots`: clusters of each size the device holds at once (splitkw);
    `sectors`: whether every row of x and W starts on a 32-byte sector (None: K's, on_sectors)."""
    sectors = on_sectors(K, sectors)
    schedule, bt, cg = option
    if schedule == "splitkw":              # a cluster of cg CTAs per pair, K split cg ways
        units = splitkw_units(M, N, bt)
        at_once = min((slots or {}).get(cg, 0), sm_budget // cg)
        got = read = SPLITKW_W_ROWS + bt
        ctas, per_cta_ks = units * cg, 1.0 / cg
        mma = SPLITKW_W_ROWS * bt
        handoff = UNALIGNED_HANDOFF * SPLITKW_W_ROWS * bt / max(k_tiles_of(K), 1)
    elif schedule in ("swapab", "tile"):
        # the fill rule's geometry: CTAs (decode: one per W tile, looping over token tiles at
        # cta_group 1; tile: one per 128-row tile), rows each receives per k-step, CTAs at once;
        # with its multicast a tile pair reads its W rows from L2 once
        units, got, at_once = _fill_units(option, M, N, sm_budget)
        read = _fill_units(option, M, N, sm_budget, multicast=True)[1]
        ctas, per_cta_ks, handoff = units, 1.0, 0.0
        mma = (BM * bt if schedule == "tile" else
               swapab_w_rows(cg) * bt * (cdiv(M, bt) if cg == 1 else 1))
    else:
        raise ValueError(f"unaligned_cost: no model of schedule {schedule!r}")
    price = (UNALIGNED_ROW_COST["tile" if schedule == "tile" else "decode"]
             * (UNALIGNED_SECTOR_ROW_FACTOR if sectors else 1.0))
    unit = per_cta_ks * max(got * price, mma / UNALIGNED_MMA_PER_ROW) + handoff
    waves = cdiv(max(units, 1), max(at_once, 1))
    l2 = unaligned_l2_share(K, sectors) * ctas * per_cta_ks * read / max(sm_budget, 1)
    return max(waves * unit, l2)


def choose_none_unaligned(M: int, N: int, K: int, arch: str, sm_budget: int,
                          splitkw_slots: dict[int, int] | None,
                          sectors: bool | None = None) -> tuple[str, int, int] | None:
    """The option of unaligned_options that unaligned_cost prices lowest (the first of a tie);
    None where there is none. `sectors`: as unaligned_cost takes it."""
    opts = unaligned_options(M, N, K, arch, sm_budget, splitkw_slots)
    return min(opts, key=lambda o: unaligned_cost(o, M, N, K, sm_budget, splitkw_slots, sectors),
               default=None)


def choose_none_by_fill(M: int, N: int, arch: str, sm_budget: int, land_rows: int,
                        bns: tuple[int, ...] | None = None, K: int | None = None,
                        cluster_slots: dict[int, int] | None = None, priced: bool = True,
                        cta_groups: tuple[int, ...] | None = None, spread: bool = True,
                        busiest: bool = True, widths: tuple[int, ...] | None = None,
                        aligned: bool | None = None,
                        xcast_slots: dict[int, int] | None = None,
                        splitkw_slots: dict[int, int] | None = None,
                        weight_aligned: bool | None = None, sectors: bool | None = None
                        ) -> tuple[str, int, int] | None:
    """(schedule, bn, cta_group) of a mode-none call at M <= SWAPAB_MAX_ROWS without a tuning
    table, by the wave-fill model (fill_cost), where the arch has the wide decode kernel
    (sm_90a); None elsewhere (the rules above decide). Before it, the decode default took one
    64-row W tile per CTA up to M = 256: N / 64 CTAs, which at N <= 5120 leaves half the SMs
    idle (N = 4096, M = 256: 0.68x torch.mm, the wide kernel with 4 token tiles of 64: 1.04x).
    Given K and the splitk kernels' `cluster_slots` (op.splitk_slots), choose_splitk's choice
    goes first where it has one (`spread` False: without its clause for M past one
    cluster's token tile, for probes). Of options the model prices the same, the one that keeps
    the most SMs busy (fill_busy; `busiest` False: the first of fill_options, as before the
    seventh session, for probes). `widths`: the tile widths to weigh (fill_options; probes).
    The wide kernel reaching past N only where its pairs fit one wave
    (ragged_wide_past_one_wave). At an N no multiple of 64 (fifteenth session) only up to M =
    FILL_RAGGED_MAX_M (past two token tiles a tile pick left to the rules:
    FILL_RAGGED_TILE_TO_RULES), over the kernels that serve such N (the wide decode kernels,
    tile widths dividing N, and since the sixteenth session splitk, whose last 64-row W tile
    reaches past N: choose_splitk over ceil(N / 64) W tiles). (The fifteenth session's
    choose_ragged_splitkw, splitkw with clusters of 4 at such N, went with that: wherever its
    pairs fit one wave of clusters of 4 (M <= 256, K >= 64 k-tiles), choose_splitk has a
    choice too, splitk's 64-row W tiles fitting the clusters of 2 the device holds twice as
    many of; and splitk measured 1.0x-2.2x it at M <= 128. tests/test_splitkw_dispatch.py
    checks that over a grid; tools/probes/choice_ab.py keeps the rule as `noraggedsplitk`.)
    `aligned`: whether every row of the call's x and W starts on a 128-byte line (their row
    strides and start addresses; None: K's, as contiguous tensors have); where not, the model of
    FILL_PRICE_UNALIGNED_DECODE (eighteenth session); before everything, given the swapabx
    kernels' `xcast_slots` (op.swapabx_slots), choose_swapabx's choice where it has one
    (nineteenth session); after choose_splitk, given K, choose_none_unaligned's (twentieth
    session: the L2-traffic model, which weighs splitkw too given `splitkw_slots`), so the
    eighteenth session's prices then decide only without K. `weight_aligned`: whether W's rows
    alone are on the lines (None: as `aligned` says of both); where they are and only x's are
    off (a weight re-laid once, tp_linear.weight_in_aligned_rows, as RowParallelLinear does by
    default), choose_swapabx's choice and then the rules of rows on the lines (twenty-first
    session: WEIGHT_ON_LINES_RULE). `sectors`: whether every row of x and W starts on a 32-byte
    sector, which the L2-traffic model prices (twenty-eighth session: UNALIGNED_L2_SHARE_SECTOR_
    ROWS); None: K's (on_sectors)."""
    if not fill_rule_decides(M, N, arch, land_rows):
        return None
    pick = _fill_pick(M, N, arch, sm_budget, bns=bns, K=K, cluster_slots=cluster_slots,
                      priced=priced, cta_groups=cta_groups, spread=spread, busiest=busiest,
                      widths=widths, aligned=aligned, xcast_slots=xcast_slots,
                      splitkw_slots=splitkw_slots, weight_aligned=weight_aligned,
                      sectors=sectors)
    if (FILL_RAGGED_TILE_TO_RULES and pick is not None and pick[0] == "tile" and N % SWAPAB_BM
            and M > SWAPAB_DEFAULT_MAX_M_TWO_TILES):
        return None   # the rules' tile schedule (see FILL_RAGGED_MAX_M)
    return pick


def _fill_pick(M: int, N: int, arch: str, sm_budget: int, *, bns: tuple[int, ...] | None,
               K: int | None, cluster_slots: dict[int, int] | None, priced: bool,
               cta_groups: tuple[int, ...] | None, spread: bool, busiest: bool,
               widths: tuple[int, ...] | None, aligned: bool | None,
               xcast_slots: dict[int, int] | None, splitkw_slots: dict[int, int] | None,
               weight_aligned: bool | None, sectors: bool | None) -> tuple[str, int, int] | None:
    """choose_none_by_fill's pick where fill_rule_decides says it decides."""
    # x's and W's rows on 128-byte lines: `aligned` (the call's layout), else K's (contiguous);
    # taken as aligned without K
    unaligned = not (aligned if aligned is not None else K is None or rows_aligned(K))
    xcast = choose_swapabx(M, N, sm_budget, xcast_slots, unaligned)
    if xcast is not None:
        return xcast
    x_only = bool(unaligned and weight_aligned and WEIGHT_ON_LINES_RULE)
    if x_only:
        # only x's rows off the lines: W's (most of the bytes at these M) are read whole lines
        # at a time, so the rules of rows on the lines decide from here
        unaligned = False
    # the L2-traffic model decides after choose_splitk (rows off the lines, given K)
    model_next = unaligned and UNALIGNED_MODEL and K is not None
    split = None
    # (cluster_slots may be an op's LazySlots: read only where choose_splitk gets that far)
    if K is not None and cluster_slots is not None and decode_fits_n(
            N, min(SPLITK_CTA_GROUPS), arch, "splitk", "none"):
        split = choose_splitk(M, N, K, arch, sm_budget, cluster_slots, spread)
        if split is not None and not (model_next
                                      and M > UNALIGNED_SPLITK_FIRST_MAX_M.get(split[2], 0)):
            return split
    if x_only and WEIGHT_ON_LINES_SPLITKW and K is not None:
        by_lines = choose_none_unaligned(M, N, K, arch, sm_budget, splitkw_slots, sectors)
        if by_lines is not None and by_lines[0] == "splitkw":
            return by_lines
    if model_next:
        # (off the lines, choose_splitk's choice past UNALIGNED_SPLITK_FIRST_MAX_M yields to
        # the model's pick only where that is one of UNALIGNED_SPLITK_YIELDS_TO)
        by_lines = choose_none_unaligned(M, N, K, arch, sm_budget, splitkw_slots, sectors)
        if split is not None and (by_lines is None
                                  or (by_lines[0], by_lines[2]) not in UNALIGNED_SPLITK_YIELDS_TO):
            return split
        if by_lines is not None:
            return by_lines
    # (at an N no multiple of 64 only the wide decode kernels and the tile widths serving N
    # are options: fill_options weighs only kernels that serve N)
    opts = [o for o in fill_options(M, N, arch, bns, cta_groups, widths, unaligned)
            if not ragged_wide_past_one_wave(o, M, N, sm_budget)]
    if not opts:
        return None
    choice = min(opts, key=lambda o: fill_cost(o, M, N, sm_budget, priced, unaligned))
    if busiest and swapab_wide_option(choice):
        # of the wide kernels the model prices the same, one that keeps FILL_BUSY_MARGIN x as
        # many SMs busy (the most)
        cost = fill_cost(choice, M, N, sm_budget, priced, unaligned)
        tied = [o for o in opts if swapab_wide_option(o)
                and fill_cost(o, M, N, sm_budget, priced, unaligned) == cost]
        busy = max(tied, key=lambda o: fill_busy(o, M, N, sm_budget))
        if fill_busy(busy, M, N, sm_budget) >= FILL_BUSY_MARGIN * fill_busy(choice, M, N, sm_budget):
            return busy
    return choice


#: The splitkw rule (choose_none_splitkw), fitted on one H200 (fifteenth session, mode none,
#: warm weights, docs/results/2026-12-02_h200_fifteenth). Call 1 (9 shapes N 704..7168 x K
#: 2048..14336 x M 513..4096): splitkw (clusters of 2, token tile 128) ran 0.50x-0.91x the time of
#: the best tile-schedule width at all 15 points where its (128-row W tile, 128-token tile) pairs
#: fit one wave of the clusters the device holds (66 of 2, 30 of 4 on an H200), and 1.16x-1.77x
#: at all 39 where they did not: a K split pays while the tile schedule leaves half the SMs or
#: more idle, and a second wave of clusters costs more than the split saves (per k-tile a
#: splitkw CTA ran ~1.3x slower than a tile CTA: its loads contend for L2, no W multicast).
#: Clusters of 4 beat clusters of 2 where their pairs fit one wave too. Call 2 held that rule (K
#: from 32 / 64 k-tiles) out at 12 shapes x 5 M: the 21 points it moved ran 1.08x-2.93x faster
#: than the rule before (geometric mean over all 60: 1.18x), none slower; it missed the short-K
#: points (N 512 K 1536, N 832 K 1984: 24 / 31 k-tiles, splitkw 1.08x-1.16x there) and
#: clusters of 4 at 40 k-tiles (N 640 K 2560, 25..30 pairs: 1.05x-1.13x over 2), so the bounds
#: below were lowered to what both calls measured (a fit to call 2: call 3 holds them out).
#: Seventeenth session (the cheaper handoff; M 513 / 768): clusters of 2 at 22..23 k-tiles beat the
#: tile schedule 1.08x-1.17x (N 704 / 1088); clusters of 4 beat 2 at 32..38 k-tiles where their
#: pairs fit one wave (N 512 / 576 / 640: up to 1.21x, one tie), so 22 / 32 (before: 24 / 40).
SPLITKW_MIN_K_TILES = {2: 22, 4: 32}
SPLITKW_RULE_BT = 128
#: The splitkw kernels the L2-traffic model weighs (unaligned_options), token tile -> cluster
#: sizes: those measured against the rest (a table or a fixed bn takes any of contract.
#: SPLITKW_BNS). Token tiles other than SPLITKW_RULE_BT only where they serve M in at most
#: SPLITKW_MODEL_MAX_TILES tiles and every pair gets a cluster at once (splitkw_small_tile_fits).
#: Twenty-ninth session, one H200 (docs/results/2026-12-03_h200_twentyninth/fit.py): fitted on
#: call 1 (the twenty-eighth session's worst shapes and six fresh ones, 50 points off the lines:
#: 0.919 / 0.925 -> 0.982 / 0.968 of the best candidate), held out in call 3 with 160 in
#: clusters of 2 too: 8 fresh shapes x M 64..320 (every candidate) 0.960 -> 0.974, and the 27
#: earlier points whose pick moved 0.922 -> 0.979. There splitkw160 in clusters of 2 lost at 6
#: of its 8 picks (0.77x-0.97x, N >= 4900 at M 160, and M 300..320), so it is not weighed:
#: without it the same points score 0.985 / 0.990 (that cut fitted on call 3). Tiles of 96 won
#: at M 40..96 and at M 192 (two tiles) 1.01x-1.19x, lost at M 1 (N 5720: 0.95x); 160 in
#: clusters of 4 at M 160 / 320 1.12x-1.39x.
SPLITKW_MODEL_TILES = {96: (2, 4), 128: (2, 4), 160: (4,)}
SPLITKW_MODEL_MAX_TILES = 2


def choose_none_splitkw(M: int, N: int, K: int, arch: str, sm_budget: int,
                        slots: dict[int, int]) -> tuple[str, int, int] | None:
    """('splitkw', 128, cluster size) for a mode-none call the tile schedule would take (past
    the decode rows; at an N no multiple of 64 from M 449) where every
    (128-row W tile, 128-token tile) pair gets a cluster at once (at most the clusters of that
    size the device holds, `slots`: op.splitkw_slots, and the SM budget allows) and K has that
    size's SPLITK(W)_MIN_K_TILES k-tiles: the largest such cluster size; else None (the tile
    schedule). See SPLITKW_MIN_K_TILES for the measurements."""
    if arch not in SCHEDULE_ARCHS["splitkw"] or not slots:
        return None
    for ks in sorted((c for c in slots if c in SPLITKW_CTA_GROUPS), reverse=True):
        if (k_tiles_of(K) >= SPLITKW_MIN_K_TILES[ks]
                and splitkw_one_wave(M, N, ks, sm_budget, slots)):
            return "splitkw", SPLITKW_RULE_BT, ks
    return None


#: The fused modes' decode default (one CTA per 64-row W tile: N / 64 CTAs) was measured at N
#: 7168 on two H200s (112 of 132 SMs busy), where the wide kernel won only at a few points the
#: tables pick. Where N / 64 is below this share of the SM budget (N <= 6272 at 132 SMs, N <=
#: 3136 on two virtual ranks of one H200), choose_fused_by_fill weighs the mode's wide kernels
#: too.
FUSED_FILL_MAX_SHARE = 0.75
#: ... and where it needs more than one wave (N / 64 > the budget, FUSED_FILL_PAST_ONE_WAVE): the
#: default then runs a second wave of a few W tiles. Two virtual ranks of one H200 (66 SMs each,
#: twenty-second session call 1; N 4480..8192, M 48 / 160 / 320, K 848..3328, rs and ar, every
#: candidate timed): the default ran 0.52-0.91 of the best candidate (geometric mean 0.80), the
#: model's pick was the best at 32 of 36 points and 0.93 of it at worst (the rule as it was then
#: left out N 5120 / 7040 / 8192 at 66 SMs). Between the two bounds (one wave, 75% busy or more:
#: N 7168 on two H200s) the default stays, as measured there.
FUSED_FILL_PAST_ONE_WAVE = True
#: ... and past one wave, from this M, the tile schedule (cta_group 2, each width dividing N)
#: among its options, priced FUSED_FILL_PRICE_TILE: where N is large for the budget (virtual
#: ranks, a reduced sm_budget, a wide N) the tile kernels beat every decode kernel at M
#: 200..512 (call 3, four / eight virtual ranks: up to 2.5x); where the default leaves SMs idle
#: (N 1152 / 1664 at 66 SMs) they lost 0.64-0.87, so not there. Fitted to calls 1-2 (0.975 ->
#: 0.989 of the best), then restricted past one wave on call 3 (0.899 -> 0.952), held out in
#: call 4.
FUSED_FILL_TILE_MIN_M = 200
FUSED_FILL_PRICE_TILE = 0.9
#: ... and only where N / 64 exceeds this many times the budget (waves of the default), per TP
#: (others: 1). At two ranks the wide decode kernels' exchange (each CTA pushes its rows to one
#: peer) is cheap enough that the tile schedule lost between one and two waves, all in AR
#: (twenty-second session call 4 and twenty-third call 1, two virtual ranks of one H200, N
#: 4992..8448, M 224..480: AR 0.78-0.96 of the wide decode kernel at 19 of 19 points, RS
#: 0.88-1.05), and won from about two (N 8576..13312: 0.88-1.31, 1.10 geometric mean); at four
#: and eight ranks it won from one wave (1.21 waves and up: 0.82-2.4, mostly > 1).
FUSED_FILL_TILE_MIN_WAVES: dict[int, int] = {2: 2}


#: rs/ar's fill rule takes the splitk schedule first where choose_splitk has a choice (its mode
#: none bounds: clusters covering every 64-row W tile in one wave, K long enough), given the
#: clusters of the mode's splitk kernels this rank holds at once (op.splitk_slots: the device's,
#: shared by the virtual ranks on it). Twenty-third session call 6 (two / four virtual ranks of
#: one H200, every candidate timed; N 768..2560, K 1536..8192, M 1..128, rs and ar): the default
#: ran 0.874 of the best candidate (0.64 at worst: N 1024 K 8192), the rule with splitk 0.998;
#: where a cluster of 2 per W tile did not fit one wave (N 2560 on 66 SMs, N 1152 on 33) the
#: default stayed the best. The exchange is the decode kernels' own (templates/decode_exchange,
#: run across two H200s by swapab); the rs/ar splitk kernels themselves never ran across two
#: GPUs.
FUSED_SPLITK = True


def choose_fused_by_fill(M: int, N: int, mode: str, arch: str, sm_budget: int,
                         land_rows: int, tp: int | None = None, K: int | None = None,
                         cluster_slots: dict[int, int] | None = None
                         ) -> tuple[str, int, int] | None:
    """(schedule, bn, cta_group) of an rs/ar call at decode size without a tuning table where
    the default decode kernel leaves SMs idle (N / 64 < FUSED_FILL_MAX_SHARE x sm_budget) or
    needs more than one wave of them (N / 64 > sm_budget: FUSED_FILL_PAST_ONE_WAVE): of the
    default and the mode's wide decode kernels (cta_group 2, its token tiles from M's down to
    M / FILL_MAX_TOKEN_TILES) and, past FUSED_FILL_TILE_MIN_WAVES of `tp` (one wave when tp is
    None) from M = FUSED_FILL_TILE_MIN_M, the tile schedule (cta_group 2, each width dividing
    N), the cheapest under the wave-fill model (fill_cost at FUSED_FILL_PRICE_DECODE /
    FUSED_FILL_PRICE_TILE; a tie keeps the default); before those, given K and the splitk
    kernels' `cluster_slots` (FUSED_SPLITK), choose_splitk's choice; None elsewhere (the rules
    decide). Each wide CTA pushes its token tile's rows and reduces them, so the exchange
    spreads over the same CTAs as the GEMM. Only where its 128-row W tiles divide N: the wide
    kernel past N (twelfth session) measured
    0.93x-0.94x (RS) and 1.05x-1.09x (AR) of cta_group 1 on two virtual ranks of one H200 (N
    2880, K 2048, M 256 / 512), and never across two GPUs, so rs/ar take it only from a tuning
    table or a fixed cta_group."""
    tiles = N // SWAPAB_BM
    one_wave = (FUSED_FILL_MAX_SHARE * sm_budget <= tiles
                and (tiles <= sm_budget or not FUSED_FILL_PAST_ONE_WAVE))
    if (mode not in ("rs", "ar") or not fill_rule_applies(arch)
            or choose_schedule(M, arch, land_rows, None, mode) != "swapab" or one_wave):
        return None
    if (FUSED_SPLITK and K is not None and cluster_slots is not None
            and decode_fits_n(N, min(SPLITK_CTA_GROUPS), arch, "splitk", mode)):
        split = choose_splitk(M, N, K, arch, sm_budget, cluster_slots, spread=False, mode=mode)
        if split is not None:
            return split
    default = ("swapab", swapab_default_token_tile(M, mode, arch=arch),
               swapab_cta_group(None, M, mode, arch, N))
    opts = [default] + [("swapab", bt, 2) for bt in token_tile_span(M, swapab_bns(arch, mode))
                        if decode_kernel_exists(arch, mode, bt, 2) and ("swapab", bt, 2) != default
                        and N % swapab_w_rows(2) == 0]
    if M >= FUSED_FILL_TILE_MIN_M and tiles > FUSED_FILL_TILE_MIN_WAVES.get(tp, 1) * sm_budget:
        opts += [("tile", bn, 2) for bn in tile_widths(N, arch, mode) if N % bn == 0]
    return min(opts, key=lambda o: fill_cost(o, M, N, sm_budget,
                                             decode_prices=FUSED_FILL_PRICE_DECODE,
                                             tile_price=FUSED_FILL_PRICE_TILE))


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
