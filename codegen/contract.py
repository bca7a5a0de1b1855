"""The kernel contract, as code: the one source both the generator and the runtime import.

Pure standard library (the runtime imports it; so does every rendered kernel, whose cache key
therefore covers this file). ``docs/KERNEL-CONTRACT.md`` explains what is defined here.

- tile constants and the valid variant axes, with the arch of each compute capability;
- the ABI kinds a kernel parameter may have, and the ordered kernel parameter list of every
  (arch, mode), each parameter with its ABI kind and DSL type;
- buffer geometry: rows per parity, flag-area layout and size, row chunks, output shapes;
- the error record: its fields in order and the error codes.

The flag-word formulas below are plain integer arithmetic, so a kernel calls them at trace
time with DSL integers and the runtime with Python ints: one formula, both sides.
"""
from __future__ import annotations

from dataclasses import dataclass

# ---- tiles and axes ----------------------------------------------------------------------------
BM = 128                 # CTA tile rows (two 64-row WGMMA warpgroups / one tcgen05 M=128)
BK = 64                  # K per pipeline stage: one 128-byte swizzle atom of bf16
#: K must be a multiple of this: 16-byte rows of x and W (a TMA global stride). Any other K
#: runs: the kernels loop over ceil(K / BK) k-tiles and the last one's columns past K load as
#: zeros (TMA out-of-bounds fill), which add nothing to the products (k_tiles).
K_MULTIPLE = 8
#: The line a row of x / W should start on: a TMA box row (BK bf16) that starts off one spans
#: two, which the decode kernels pay for in L2 -> SM bytes (dispatch.rows_aligned; RowParallelLinear
#: re-lays its weight onto them: tp_linear.weight_in_aligned_rows).
ROW_LINE_BYTES = 128
MIN_BN = 128             # the smallest BN of any variant: it gives the most N tiles
#: N must be a multiple of this: one 64-row W tile of the decode kernels (SWAPAB_BM). Where N is
#: no multiple of 128 (e.g. gpt-oss's hidden size 2880), only kernels whose W tiles divide N, or
#: may reach past it, serve (decode_fits_n, tile_fits_n): the decode kernel with one 64-row W
#: tile per CTA (cta_group 1), splitk, the 192-row W tile (cta_group 3, mode none), and the tile
#: schedule at a width dividing N (224 where N is a multiple of 224), and the wide decode kernel
#: (cta_group 2, its last 128-row W tile past N). sm_90a only: the sm_100a kernels (compile-only here) keep
#: N % 128 == 0.
N_MULTIPLE = 64
#: Mode none on sm_90a (fourteenth session): N any multiple of this (16-byte output rows, as TMA
#: and the 16-byte stores need). At an N no multiple of N_MULTIPLE only kernels whose last W /
#: N tile may reach past N serve it: the tile schedule (tile_ragged_n), the wide decode
#: kernels (cta_group 2 and 3, swapab_ragged_n), splitkw and (sixteenth session) splitk
#: (splitk_ragged_n); not cta_group 1 (64-row W tiles that must divide N). rs/ar keep
#: N_MULTIPLE (their groups' landing slots and decode kernels).
N_MULTIPLE_NONE = 8

ARCHS = ("sm_90a", "sm_100a")
MODES = ("rs", "ar", "none")
COLLECTIVE_MODES = ("rs", "ar")
TRANSPORTS = ("multicast", "unicast")
#: Tile widths (W rows per output tile) of the tile schedule. 224 fills the SMs where 256 leaves a
#: short last wave (N = 7168, M = 512: 4 x 32 = 128 tiles on 132 SMs against 4 x 28 = 112); a
#: width dividing N is preferred; on sm_90a the last N tile may reach past N (tile_ragged_n).
BNS = (128, 224, 256)
#: ...and, mode none on sm_90a, 160 and 192, for the N that 128 / 224 / 256 cut into a short
#: last wave or do not divide at all: N 5120 at M 512 is 4 x 32 = 128 tiles of 160 on 132 SMs
#: (256: 80, 128: 160), N 3072 at M 1024 8 x 16 = 128 tiles of 192 (256: 96, 128: 192), and N
#: 2880 (gpt-oss) is a multiple of neither 128 nor 224, so without them the op served it at M <=
#: 512 only. One H200 (BENCHMARKS.md, 2026-12-01 eleventh session): the N 5120 model shapes at M
#: 512..1024 0.80x-0.96x torch.mm -> 0.97x-1.05x, N 3072 K 8192 M 1024 0.72x -> 0.99x; 12 random
#: held-out shapes past 512 rows 1.058x the picks without them. The dispatcher weighs them where
#: they divide N (tile_widths). rs/ar on sm_90a have them too (thirteenth session), so the fused
#: op serves N 2880 past the decode rows (before: InputError, the layer fell back to torch.mm +
#: NCCL); their flags are sized by MIN_BN tiles (flag_words: cdiv), of which a wider BN uses a
#: prefix. rs/ar's dispatcher weighs them by the wave rule where they divide N, or alone where
#: no width of BNS does (dispatch.choose_bn; fourteenth session: before, only the latter): their
#: BNS picks at N 5120 / 3072 / 6144 were measured across two GPUs, these widths on virtual
#: ranks of one H200 only.
TILE_EXTRA_BNS = {"sm_90a": {"none": (160, 192), "rs": (160, 192), "ar": (160, 192)}}
CTA_GROUPS = (1, 2)
TPS = (2, 4, 8, 16)
DTYPES = ("bf16",)

#: Tile schedules. "tile": BM x BN output tiles (x rows x W rows), partials exchanged through
#: per-rank workspaces (large M). "swapab": the decode schedule for M <= SWAPAB_MAX_ROWS:
#: W is the MMA's M operand (SWAPAB_BM rows per CTA) and the tokens its N (`bn` = the token
#: tile, one of SWAPAB_BNS), each rank pushes its partial tile straight into every reader's
#: landing buffer (the data is its own flag: Lamport) and the readers sum locally.
#: "splitk": the decode schedule with K split over a cluster of `cta_group` CTAs (2 or 4) per
#: 64-row W tile, their f32 partial tiles summed through distributed shared memory before the
#: store / push: N / 64 x cta_group CTAs stream the weight where N / 64 alone leaves SMs idle
#: (N <= 4096). Same parameters, landing buffers and exchange as "swapab" (decode_schedule).
#: sm_100a: compiled and PTX-checked only (no Blackwell GPU here), never dispatched by a rule.
#: "splitkw" (mode none, sm_90a): the wide decode kernel's tile (128 W rows x a token tile, two
#: MMA warpgroups of 64 W rows) with K split over a cluster of `cta_group` CTAs (2 or 4), the
#: (W tile, token tile) pairs spread over the clusters, for any M: where the tile schedule has
#: few tiles for the SMs and a long K (e.g. N 704, K 8192, M 513..1024: 30..48 tiles of 128 x
#: 128 on 132 SMs), each cluster's CTAs stream one KS-th of K and meet in f32 through
#: distributed shared memory (the splitk handoff). Not a decode schedule: no landing rows.
#: "swapabx" (mode none, sm_90a; nineteenth session): the decode kernel of cta_group 1 (one
#: 64-row W tile per CTA, looping over the token tiles) in clusters of `cta_group` CTAs (2 or
#: 4) on neighbouring W tiles that share every x tile: each CTA loads 1 / cta_group of its rows
#: and multicasts them to the cluster. Every CTA of the cta_group 1 kernel reads all of x
#: (N / 64 times over the grid: at M 160, N 7168 that is 2.5x the weight's bytes), which bounds
#: it by the L2 -> SM bandwidth, and twice over where x's rows are not 128-byte lines (each
#: box row then spans two); the cluster reads x once per cluster instead (BENCHMARKS.md,
#: nineteenth session).
#: "streamk" (mode none, sm_90a; thirtieth session): the tile kernel (BM x BN output tiles,
#: cta_group 1 or a cluster of 2-4 CTAs along M sharing each W tile) whose persistent CTAs split
#: the k-tiles of the last waves evenly (stream-K: contract.streamk_split), so no SM idles in a
#: partial last wave. A tile whose k-tiles two CTAs share is summed in f32 through a workspace
#: in global memory, one per stream (runtime/streamk_buffers.py): the CTA that computed its
#: later k-tiles stores its partial and raises a flag, the one that computed k-tile 0 waits for
#: it (bounded), adds it and stores the tile. The CTAs form sets of as many clusters as the call has cluster row blocks (at most all),
#: and a set's clusters take the row blocks of one N tile at the same k-tiles, so each W tile
#: comes from DRAM about once per set (contract.streamk_lanes). Clusters of 3 (BN 192) and 4
#: (BN 256) along M share each W tile by multicast, so three or four row tiles need no padded
#: one. The dispatch takes streamk192 in clusters of 3 only in place of a tile pair at three row
#: tiles (dispatch.streamk_instead: held out on one H200, 1.105x); elsewhere streamk ran 0.97x
#: the dispatch's picks on average (BENCHMARKS.md, thirtieth session).
SCHEDULES = ("tile", "swapab", "splitk", "splitkw", "swapabx", "streamk")
SCHEDULE_ARCHS = {"tile": ARCHS, "swapab": ARCHS, "splitk": ARCHS, "splitkw": ("sm_90a",),
                  "swapabx": ("sm_90a",), "streamk": ("sm_90a",)}
SWAPAB_BNS = (16, 32, 64, 128, 256)
#: More token tiles of the decode kernels, per arch and mode: 144/160/192/208/224 tokens (WGMMA
#: N 72/80/96/104/112 per warpgroup, or the whole tile in the wide kernel) serve M 129..224 with
#: one token tile (and, mode none, M 257..448 with two), where a token tile of 256 or two of 128
#: do up to twice the MMA work; 144 (mode none) is cuBLAS's token tile at M = 288 (128 x 144),
#: 208 covers M 385..416 in two tiles (two of 224 computed 12% padding there; M = 400, K =
#: 2304, one H200: 0.88x -> 0.94x torch.mm, the worse of warm and cold weights). Mode
#: none, one H200, K 768..2304: 0.73x-0.82x torch.mm at M 129..160 before, ~1.0x with 160. rs/ar
#: at TP2 on two H200s: token tile 160 is 10-19% (rs) and 1-8% (ar) faster than two of 128 at M
#: 129..160; 192/224 did not pay for rs/ar (224 was slower for ar), so they are not built
#: (BENCHMARKS.md, 2026-11-30). None on sm_100a (compile-only here, unmeasured). Mode none's
#: 80/96/112 serve the wide kernel at N <= 5120, M 257..448 (e.g. N 4096, M 320: 32 W tiles x 4
#: token tiles of 80 = 128 CTAs, where tiles of 128 gave 96 CTAs and 0.73x torch.mm; the
#: wave-fill rule, dispatch.choose_none_by_fill, picks them; BENCHMARKS.md 2026-12-01 fourth).
SWAPAB_EXTRA_BNS = {
    "sm_90a": {"none": (80, 96, 112, 144, 160, 192, 208, 224), "rs": (160,), "ar": (160,)},
    "sm_100a": {},
}
#: Every token tile some decode kernel has.
SWAPAB_ALL_BNS = tuple(sorted(set(SWAPAB_BNS).union(
    *(bns for per_mode in SWAPAB_EXTRA_BNS.values() for bns in per_mode.values()))))
#: cta_group of the swapab kernels per arch; the sm_100a decode kernel has cta_group 1 only. On
#: sm_90a, 2 is the "wide" kernel (swapab_wide): one CTA per (128-row W tile, token tile), the
#: pairs spread over the grid, no cluster. (Until 2026-11-30 it was a CTA pair splitting K over
#: a 128-row W tile; the tables had stopped picking it but at one point: BENCHMARKS.md.)
#: sm_90a mode none also has cta_group 3: the wide kernel with a 192-row W tile (three MMA
#: warpgroups of 64 W rows; the last W tile may reach past N, a multiple of 64), cuBLAS's tile
#: at the compute-bound decode sizes (N 5888, M 425: 192 x 112 on 124 CTAs, one wave), at the
#: token tiles SWAPAB_CG3_BNS only (512 threads: 128 registers each; 192 tokens use 122).
#: One H200 (BENCHMARKS.md 2026-12-01 sixth session): the best kernel at 7 of 13 compute-bound
#: points, +4% to +18% over the best of cta_group 1 / 2.
SWAPAB_CTA_GROUPS = {"sm_90a": (1, 2, 3), "sm_100a": (1,)}
SWAPAB_CG3_BNS = (64, 80, 96, 112, 128, 144, 160, 192)
SWAPAB_BM = 64
SWAPAB_MAX_ROWS = 512
#: Token tiles and K-split cluster sizes (cta_group) of the splitk kernels (every mode). Token
#: tiles up to 128: the schedule is for few tokens over a small N (M <= 256 or so); each token
#: tile's K-split partials meet in f32 through distributed shared memory.
SPLITK_BNS = (16, 32, 64, 128)
#: ...and, mode none on sm_90a, token tiles of 160 / 192 (one tile, one handoff, for M 129..192
#: where tiles of 128 loop twice over K: N 1024, K 14336, M 160 ran at 0.35x-0.46x torch.mm;
#: 5 / 4 pipeline stages beside the f32 partial tile).
SPLITK_EXTRA_BNS = {"sm_90a": {"none": (160, 192)}}
SPLITK_CTA_GROUPS = (2, 4)
#: Token tiles and cluster sizes of the splitkw kernels (mode none, sm_90a). A token tile of 128
#: keeps the WGMMA N of the tile schedule's 128 x 128 tile; its f32 partial tile (128 x 132 f32)
#: leaves 4 pipeline stages (splitkw_stages). A token tile of 64 (7 stages, twice the pairs) was
#: built and timed: never the fastest splitkw kernel at any of 54 points (one H200, fifteenth
#: session; 0.60x-0.98x of the 128 one at best), so it is not built. Token tiles of 96 / 160
#: (5 / 3 stages) serve M 65..96 and 129..160 in one tile where 128 computes and reads x for
#: 128 / 256 tokens (twenty-ninth session: M 160 at N 3832, K 16120 ran at 0.59x torch.mm with
#: splitk160c2 the best kernel built, its 64-row W tiles reading x twice as often; splitkw160c4
#: 0.80x). 192 (2 stages) was built and timed at 66 points: never within 0.9 of the best
#: splitkw kernel (at most 0.76x torch.mm), so it is not built. The dispatch weighs each where it
#: was measured (dispatch.SPLITKW_MODEL_TILES).
SPLITKW_BNS = (96, 128, 160)
SPLITKW_CTA_GROUPS = (2, 4)
#: W rows of a splitkw tile (two MMA warpgroups of SWAPAB_BM)
SPLITKW_W_ROWS = 128
#: Token tiles and cluster sizes of the swapabx kernels (mode none, sm_90a). Every token tile
#: splits into cta_group slices of a multiple of 8 rows (the 128-byte swizzle's row group); no
#: 16 (x is a small share of the traffic there).
SWAPABX_BNS = (32, 64, 96, 128, 160, 192, 256)
SWAPABX_CTA_GROUPS = (2, 4)
#: Widths and cluster sizes of the streamk kernels (mode none, sm_90a): the tile schedule's
#: widest tile (WGMMA N 256), and 192; a cluster of cta_group CTAs along M shares each W tile
#: by multicast, each CTA loading 64 of its rows (streamk_kernel_exists: BN 256 in clusters of
#: 1 / 2 / 4, BN 192 of 1 / 3), so three or four row tiles (M 257..512) share W without the
#: padded fourth row tile of a CTA pair.
STREAMK_BNS = (192, 256)
STREAMK_CTA_GROUPS = (1, 2, 3, 4)


def streamk_kernel_exists(bn: int, cta_group: int) -> bool:
    """Whether a streamk kernel pairs width `bn` with `cta_group`: each CTA of the cluster loads
    (and multicasts) an equal share of whole 64-row blocks of the W tile."""
    return bn in STREAMK_BNS and cta_group in STREAMK_CTA_GROUPS and (bn // 64) % cta_group == 0


def streamk_pairs() -> list[tuple[int, int]]:
    """Every (BN, cta_group) a streamk kernel exists for (streamk_kernel_exists)."""
    return [(bn, cg) for bn in STREAMK_BNS for cg in STREAMK_CTA_GROUPS
            if streamk_kernel_exists(bn, cg)]


DECODE_SCHEDULES = ("swapab", "splitk", "swapabx")
#: Schedules whose `bn` is a token tile (W rows are the MMA's M): the decode schedules and
#: splitkw; their kernels take the swapab parameter list (params_schedule).
TOKEN_SCHEDULES = ("swapab", "splitk", "splitkw", "swapabx")
#: Schedules whose cta_group is the cluster size of a K split (contract.ksplit).
KSPLIT_SCHEDULES = ("splitk", "splitkw")
#: Schedules whose cta_group is a cluster size (the grid a multiple of it; how many clusters
#: the device holds at once bounds it): the K splits and swapabx's x multicast.
CLUSTER_SCHEDULES = KSPLIT_SCHEDULES + ("swapabx",)
#: Every cta_group value some schedule has (the CLI's --cta-group choices).
ALL_CTA_GROUPS = tuple(sorted({1, 2, 3, *SPLITK_CTA_GROUPS, *SPLITKW_CTA_GROUPS,
                               *SWAPABX_CTA_GROUPS}))


def decode_schedule(schedule: str | None) -> bool:
    """Whether `schedule` is a decode schedule (W rows as the MMA's M, tokens as its N, the
    landing-buffer exchange, M <= land_rows): swapab, splitk and (mode none) swapabx."""
    return schedule in DECODE_SCHEDULES


def params_schedule(schedule: str) -> str:
    """The schedule whose parameter list and TMA operands a kernel of `schedule` takes (splitk
    and splitkw take swapab's)."""
    return "swapab" if schedule in TOKEN_SCHEDULES else schedule


def ksplit(schedule: str, cta_group: int) -> int:
    """CTAs per cluster splitting K over one tile: cta_group for splitk / splitkw, else 1."""
    return cta_group if schedule in KSPLIT_SCHEDULES else 1


def schedule_bns(arch: str | None, mode: str, schedule: str) -> tuple[int, ...]:
    """Widths (tile: BN; decode: token tiles) of the (arch, mode, schedule) kernels."""
    if schedule == "splitk":
        return splitk_bns(arch, mode)
    if schedule == "splitkw":
        return splitkw_bns(arch, mode)
    if schedule == "swapabx":
        return swapabx_bns(arch, mode)
    if schedule == "swapab":
        return swapab_bns(arch, mode)
    if schedule == "streamk":
        return streamk_bns(arch, mode)
    return tile_bns(arch, mode)


def tile_bns(arch: str | None, mode: str) -> tuple[int, ...]:
    """Widths of the (arch, mode) tile kernels, ascending (arch None: of any arch): BNS and
    TILE_EXTRA_BNS."""
    return _with_extra_bns(BNS, TILE_EXTRA_BNS, arch, mode)


def splitk_bns(arch: str | None, mode: str) -> tuple[int, ...]:
    """Token tiles of the (arch, mode) splitk kernels, ascending (arch None: of any arch)."""
    return _with_extra_bns(SPLITK_BNS, SPLITK_EXTRA_BNS, arch, mode)


def splitkw_bns(arch: str | None, mode: str) -> tuple[int, ...]:
    """Token tiles of the (arch, mode) splitkw kernels: SPLITKW_BNS in mode none where the arch
    has the schedule (arch None: any arch), else none."""
    has = arch is None or arch in SCHEDULE_ARCHS["splitkw"]
    return SPLITKW_BNS if mode == "none" and has else ()


def streamk_bns(arch: str | None, mode: str) -> tuple[int, ...]:
    """Widths of the (arch, mode) streamk kernels: STREAMK_BNS in mode none where the arch has
    the schedule (arch None: any arch), else none."""
    has = arch is None or arch in SCHEDULE_ARCHS["streamk"]
    return STREAMK_BNS if mode == "none" and has else ()


def swapabx_bns(arch: str | None, mode: str) -> tuple[int, ...]:
    """Token tiles of the (arch, mode) swapabx kernels: SWAPABX_BNS in mode none where the arch
    has the schedule (arch None: any arch), else none."""
    has = arch is None or arch in SCHEDULE_ARCHS["swapabx"]
    return SWAPABX_BNS if mode == "none" and has else ()


def x_slice_rows(schedule: str, token_tile: int, cta_group: int) -> int:
    """Rows of a token tile of x each CTA loads (and multicasts, swapabx: token_tile /
    cta_group); the whole token tile elsewhere."""
    return token_tile // cta_group if schedule == "swapabx" else token_tile


def _with_extra_bns(base: tuple[int, ...], extra: dict, arch: str | None,
                    mode: str) -> tuple[int, ...]:
    """`base` and the (arch, mode) entries of `extra` ({arch: {mode: token tiles}}), ascending
    (arch None: of any arch)."""
    archs = ARCHS if arch is None else (arch,)
    more = set().union(*(extra.get(a, {}).get(mode, ()) for a in archs))
    return tuple(sorted(set(base) | more))


def schedule_cta_groups(arch: str | None, schedule: str) -> tuple[int, ...]:
    """cta_group values of the (arch, schedule) kernels (arch None: of any arch)."""
    if schedule == "splitk":
        return SPLITK_CTA_GROUPS
    if schedule == "splitkw":
        return SPLITKW_CTA_GROUPS
    if schedule == "swapabx":
        return SWAPABX_CTA_GROUPS
    if schedule == "streamk":
        return STREAMK_CTA_GROUPS
    if schedule == "swapab":
        archs = ARCHS if arch is None else (arch,)
        return tuple(sorted({cg for a in archs for cg in SWAPAB_CTA_GROUPS.get(a, ())}))
    return CTA_GROUPS


#: Shared memory of one CTA the decode kernels plan with (sm_90a and sm_100a), and their
#: deepest pipeline.
DECODE_SMEM_CAPACITY = 227 * 1024
DECODE_MAX_STAGES = 12


#: The wide sm_90a decode kernel stores its transposed tile in passes of a few tokens where the
#: whole tile would leave it fewer than DECODE_EPI_MIN_STAGES pipeline stages (token tiles 192+:
#: 3-4 stages), in at most DECODE_EPI_MAX_PASSES passes (decode_epi_tokens).
DECODE_EPI_MIN_STAGES = 5
DECODE_EPI_MAX_PASSES = 4


def _decode_stages_with(token_tile: int, w_rows: int, ksplit: int, epi_tokens: int) -> int:
    epi = epi_tokens * (w_rows + 8) * 2
    if ksplit > 1:
        epi += token_tile * (w_rows + 4) * 4
    stage = (w_rows + token_tile) * BK * 2
    return min(DECODE_MAX_STAGES, (DECODE_SMEM_CAPACITY - 4096 - epi) // stage)


def decode_epi_tokens(token_tile: int, w_rows: int, ksplit: int = 1, arch: str = "sm_90a") -> int:
    """Tokens of the transposed epilogue tile that shared memory holds at once; the kernel
    stores a tile in ceil(token_tile / this) passes. The whole token tile, except in the wide
    sm_90a kernel (w_rows 128, no K split) where that leaves fewer than DECODE_EPI_MIN_STAGES
    stages: then the fewest passes (at most DECODE_EPI_MAX_PASSES, a multiple of 8 tokens each)
    that give it the most stages (token tiles 192: 3 passes, 4 -> 5 stages; 208/224: 2, 3 -> 4;
    256: 3, 3 -> 4)."""
    whole = _decode_stages_with(token_tile, w_rows, ksplit, token_tile)
    if arch != "sm_90a" or w_rows < 2 * SWAPAB_BM or ksplit > 1 or whole >= DECODE_EPI_MIN_STAGES:
        return token_tile
    best, most = token_tile, whole
    for passes in range(2, DECODE_EPI_MAX_PASSES + 1):
        tokens = cdiv(cdiv(token_tile, passes), 8) * 8
        stages = _decode_stages_with(token_tile, w_rows, ksplit, tokens)
        if stages > most:
            best, most = tokens, stages
    return best


def decode_epi_passes(token_tile: int, w_rows: int, ksplit: int = 1, arch: str = "sm_90a") -> int:
    """Passes in which a decode kernel stores its transposed tile (decode_epi_tokens)."""
    return cdiv(token_tile, decode_epi_tokens(token_tile, w_rows, ksplit, arch))


def decode_stages(token_tile: int, w_rows: int, ksplit: int = 1, arch: str = "sm_90a") -> int:
    """Pipeline stages of a decode kernel (sm90_swapab.py.j2 and sm100_swapab.py.j2 size their
    pipelines with this): what shared memory holds after the transposed epilogue tile
    (decode_epi_tokens x (w_rows + 8) bf16), the splitk f32 partial tile (token_tile x (w_rows +
    4) f32) and 4 KiB of barriers, in stages of one W tile (w_rows x BK) plus one x tile
    (token_tile x BK). The wide kernel's token tiles of 192+ get 4 or 5 (3 or 4 before their
    epilogue went in passes), which the wave-fill rule prices (dispatch.fill_cost)."""
    return _decode_stages_with(token_tile, w_rows, ksplit,
                               decode_epi_tokens(token_tile, w_rows, ksplit, arch))


def splitkw_stages(token_tile: int, ksplit: int) -> int:
    """Pipeline stages of a splitkw kernel (templates/sm90_swapab.py.j2): what shared memory holds
    after its f32 partial tile (token_tile x (SPLITKW_W_ROWS + 4)), the bf16 rows it sums and
    stores (token_tile / ksplit x (SPLITKW_W_ROWS + 8)) and 4 KiB of barriers, in stages of one
    W tile plus one x tile (token tile 128: 4 stages)."""
    return _decode_stages_with(token_tile, SPLITKW_W_ROWS, ksplit, token_tile // ksplit)


def splitk_spread(arch: str, mode: str) -> bool:
    """Whether the (arch, mode) splitk kernels spread (W tile, token tile) pairs over their
    clusters (mode none on sm_90a: at M past one token tile every pair gets a cluster of its own
    while the device holds them, as the wide swapab kernel spreads its pairs over CTAs); else a
    cluster takes a W tile's token tiles one after another (rs/ar: its reduce then covers every
    row of the W tile; sm_100a: compile-only here, left as built)."""
    return arch == "sm_90a" and mode == "none"


def splitk_min_k(cta_group: int) -> int:
    """The smallest K a splitk / splitkw kernel of `cta_group` takes: one whole k-tile per CTA
    of its cluster."""
    return cta_group * BK


def k_tiles(K: int) -> int:
    """k-tiles a kernel loops over for K: ceil(K / BK), the last one partial where K is not a
    multiple of BK (its columns past K load as zeros). The templates compute the same."""
    return cdiv(K, BK)

ARCH_OF_CAPABILITY = {(9, 0): "sm_90a", (10, 0): "sm_100a"}
ARCH_NUM = {"sm_90a": 90, "sm_100a": 100}


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# ---- ABI kinds ---------------------------------------------------------------------------------
#: scalar kind -> (struct format, size); alignment = size.
SCALAR_KINDS = {
    "i8": ("<b", 1), "u8": ("<B", 1), "i16": ("<h", 2), "u16": ("<H", 2),
    "i32": ("<i", 4), "u32": ("<I", 4), "i64": ("<q", 8), "u64": ("<Q", 8),
    "f32": ("<f", 4), "f64": ("<d", 8),
}
TMA_DESC_BYTES = 128     # a TMA descriptor: `.param .align 64 .b8 [128]`, by value
TMA_DESC_ALIGN = 64


def kind_size(kind: str) -> int:
    """Bytes of a parameter of ABI kind `kind`: a scalar, `tma_desc`, or `<scalar>x<n>`
    (a vector, e.g. `i32x2`: the DSL's coordinate tensor of a TMA operand). ValueError if unknown."""
    if kind in SCALAR_KINDS:
        return SCALAR_KINDS[kind][1]
    if kind == "tma_desc":
        return TMA_DESC_BYTES
    elem, sep, count = kind.partition("x")
    if sep and elem in SCALAR_KINDS and count.isdigit() and int(count) > 0:
        return SCALAR_KINDS[elem][1] * int(count)
    raise ValueError(f"unknown ABI kind {kind!r}")


# ---- kernel parameters -------------------------------------------------------------------------
_ALL = MODES


@dataclass(frozen=True)
class Param:
    """One kernel parameter: name (its meaning is fixed), ABI kind, DSL type, fake value.

    `where` lists (arch, schedule, modes): the kernels that take the parameter.
    """

    name: str
    kind: str
    dsl_type: str          # the annotation in the kernel signature ("" for TMA operands)
    doc: str
    where: tuple[tuple[str, str, tuple[str, ...]], ...]
    fake: int = 0          # value passed when compiling with fake arguments

    def taken_by(self, arch: str, mode: str, schedule: str = "tile") -> bool:
        schedule = params_schedule(schedule)
        return any(a == arch and s == schedule and mode in modes for a, s, modes in self.where)


def _where(sm90: tuple[str, ...], sm100: tuple[str, ...], swapab: tuple[str, ...] = ()) -> tuple:
    """Modes of the sm_90a tile kernels, the sm_100a tile kernels, the swapab kernels (both
    archs: one parameter list, whatever the MMA)."""
    return (("sm_90a", "tile", sm90), ("sm_100a", "tile", sm100), ("sm_90a", "swapab", swapab),
            ("sm_100a", "swapab", swapab))


_TILE_COLL = _where(COLLECTIVE_MODES, COLLECTIVE_MODES)
_COLL = _where(COLLECTIVE_MODES, COLLECTIVE_MODES, COLLECTIVE_MODES)
_SWAPAB = _where((), (), COLLECTIVE_MODES)
#: the streamk kernels (mode none, sm_90a only)
_STREAMK = (("sm_90a", "streamk", ("none",)),)

#: TMA operands in parameter order: each is a descriptor `tma_<op>` then its coordinate
#: tensor `tma_<op>_shape` (i32 per dynamic dim). sm_100a stores C from registers (no `c`).
TMA_OPERANDS = {
    "a": ("x [M, K]", (("sm_90a", "tile"), ("sm_100a", "tile"), ("sm_90a", "swapab"),
                       ("sm_100a", "swapab"), ("sm_90a", "streamk"))),
    "b": ("W [N, K]", (("sm_90a", "tile"), ("sm_100a", "tile"), ("sm_90a", "swapab"),
                       ("sm_100a", "swapab"), ("sm_90a", "streamk"))),
    "c": ("mode none: out [M, N]; rs/ar: the workspace [2 * workspace_rows, N]",
          (("sm_90a", "tile"), ("sm_90a", "streamk"))),
    "t": ("x [M, K] again, box rows x_tail_rows(M, tile): the last row tile's loads",
          (("sm_90a", "tile"), ("sm_90a", "swapab"), ("sm_90a", "streamk"))),
}


def swapab_bns(arch: str | None, mode: str) -> tuple[int, ...]:
    """Token tiles of the (arch, mode) decode kernels, ascending (arch None: of any arch)."""
    return _with_extra_bns(SWAPAB_BNS, SWAPAB_EXTRA_BNS, arch, mode)


def swapab_wide(cta_group: int) -> bool:
    """Whether a decode kernel is "wide" (cta_group 2, every mode; 3, mode none): one CTA per
    (64 x cta_group-row W tile, token tile), its grid ceil(N / W rows) * ceil(M / token tile)
    CTAs (at most the SM budget)."""
    return cta_group >= 2


def swapab_w_rows(cta_group: int) -> int:
    """W rows of a decode kernel's tile (swapab): 64 per MMA warpgroup, cta_group of them."""
    return SWAPAB_BM * cta_group


def decode_kernel_exists(arch: str, mode: str, bn: int, cta_group: int) -> bool:
    """Whether the swapab (arch, mode) kernels pair token tile `bn` with `cta_group` (every
    pair of their token tiles and cta_groups but cta_group 3, which is mode none on sm_90a at
    SWAPAB_CG3_BNS only)."""
    if cta_group == 3:
        return arch == "sm_90a" and mode == "none" and bn in SWAPAB_CG3_BNS
    return cta_group in SWAPAB_CTA_GROUPS.get(arch, ()) and bn in swapab_bns(arch, mode)


def swapab_cta_groups(arch: str, mode: str) -> tuple[int, ...]:
    """cta_group values of the (arch, mode) swapab kernels (3: mode none on sm_90a only):
    those with a token tile (decode_kernel_exists)."""
    return tuple(cg for cg in SWAPAB_CTA_GROUPS.get(arch, ())
                 if any(decode_kernel_exists(arch, mode, bt, cg) for bt in swapab_bns(arch, mode)))


def swapab_ragged_n(cta_group: int, arch: str | None) -> bool:
    """Whether a swapab kernel's W tile may reach past N: its last W tile's rows past N load as
    zeros (TMA), its stores (mode none: out; rs/ar: the landing slots) and its reduction stop at
    N, so it serves any N a multiple of N_MULTIPLE; the grid counts ceil(N / W rows) W tiles.
    cta_group 3 (192 rows, which divide no MIN_BN multiple) and, since the twelfth session, the
    wide kernel on sm_90a (cta_group 2, 128 rows: N = 64 mod 128, e.g. gpt-oss's 2880; arch None:
    not known yet, the arch where N need not be a multiple of 128). Not on sm_100a (no wide
    decode kernel there, and N is a multiple of 128: n_multiple). The other decode kernels need
    their W rows to divide N (decode_fits_n)."""
    return (MIN_BN % swapab_w_rows(cta_group) != 0
            or (cta_group == 2 and arch in (None, "sm_90a")))


def splitk_ragged_n(arch: str | None, mode: str | None) -> bool:
    """Whether the (arch, mode) splitk kernels' last 64-row W tile may reach past N (rows past N
    load as zeros, nothing past N is stored: the same template code as the wide kernel's, with
    ceil(N / 64) W tiles): mode none on sm_90a (sixteenth session), so splitk serves any N a
    multiple of N_MULTIPLE_NONE there. Where N is no multiple of 64 the wide decode kernel (128
    W rows per CTA) or splitkw (128 rows, 4 pipeline stages) served it before, and at decode
    sizes both keep few bytes in flight per SM (N 1000, K 8192, M 16: 0.39x-0.49x torch.mm).
    rs/ar never see such N (N_MULTIPLE); sm_100a keeps N % 128 == 0. arch / mode None: not known
    yet (sm_90a and mode none assumed, as swapab_ragged_n does)."""
    return arch in (None, "sm_90a") and mode in (None, "none")


def decode_fits_n(N: int, cta_group: int, arch: str | None, schedule: str = "swapab",
                  mode: str | None = None) -> bool:
    """Whether a decode kernel of (schedule, cta_group) on (`arch`, `mode`) serves N: its W tiles
    divide N (splitk and cta_group 1: 64 rows; the wide kernel: 128) or may reach past it
    (swapab_ragged_n: cta_group 3, and 2 on sm_90a; splitk_ragged_n: splitk of mode none on
    sm_90a). `mode` None: not known yet, so the loosest (splitk then serves any N on sm_90a, as
    mode none's does: a caller that knows the mode passes it; rs/ar's N is a multiple of 64
    anyway, contract.n_multiple)."""
    if schedule == "splitk":
        return N % SWAPAB_BM == 0 or splitk_ragged_n(arch, mode)
    if schedule == "swapabx":   # 64-row W tiles that divide N (a cluster's spare CTA idles)
        return N % SWAPAB_BM == 0
    return N % swapab_w_rows(cta_group) == 0 or swapab_ragged_n(cta_group, arch)


def tile_ragged_n(arch: str | None, mode: str | None) -> bool:
    """Whether the tile kernels of (arch, mode) serve an N their width does not divide: the grid
    counts ceil(N / BN) N tiles, the last one's W rows past N load as zeros (TMA out-of-bounds
    fill) and the TMA unit drops its stores past N (out, the rs/ar workspace and the push slots
    are N wide); rs/ar's reduction and AR copy-out stop at N (templates/comm_phase.py.j2,
    n_tiles_of). Every mode on sm_90a (mode none since the thirteenth session, rs/ar since the
    fourteenth), so any N a multiple of n_multiple(arch, mode) is served at every M. Not sm_100a
    (N % 128 == 0 there, and every width divides it or is not taken)."""
    return arch == "sm_90a" and mode in MODES


def variant_ragged_n(schedule: str, cta_group: int, arch: str, mode: str) -> bool:
    """Whether a kernel's last W / N tile may reach past N (meta.json `launch.ragged_n`, which
    kernel.contract_mismatch trusts): a swapab kernel where swapab_ragged_n says so, a splitk
    kernel where splitk_ragged_n does, every splitkw kernel, a tile kernel where tile_ragged_n
    does."""
    if schedule == "swapab":
        return swapab_ragged_n(cta_group, arch)
    if schedule == "splitk":
        return splitk_ragged_n(arch, mode)
    if schedule == "splitkw":
        return True
    return schedule in ("tile", "streamk") and tile_ragged_n(arch, mode)


def tile_fits_n(N: int, bn: int, arch: str | None = None, mode: str | None = None) -> bool:
    """Whether the tile schedule at width `bn` serves N: its N tiles divide N, or the (arch,
    mode) kernels' last N tile may reach past it (tile_ragged_n; arch or mode None: not known,
    so only a width dividing N)."""
    return N % bn == 0 or (tile_ragged_n(arch, mode) and N % n_multiple(arch, mode) == 0)


def known_tile_bns(arch: str | None, mode: str | None) -> tuple[int, ...]:
    """The tile widths a kernel of (arch, mode) surely has: tile_bns, or where arch or mode is
    not known yet the widths every arch and mode has (BNS)."""
    return BNS if arch is None or mode is None else tile_bns(arch, mode)


def tile_widths(N: int, arch: str | None = None, mode: str | None = None) -> tuple[int, ...]:
    """The widths of known_tile_bns(arch, mode) that divide N; where none does, every width if
    the kernels' last N tile may reach past N (tile_ragged_n: sm_90a, e.g. N 704 = 11 x 64),
    else none at all (an arch or mode not known yet: a caller then serves no tile rows there).
    A width that divides N is never passed over here for one that reaches past it
    (dispatch.choose_bn weighs both for mode none on sm_90a past the decode rows)."""
    bns = known_tile_bns(arch, mode)
    exact = tuple(bn for bn in bns if N % bn == 0)
    return exact or tuple(bn for bn in bns if tile_fits_n(N, bn, arch, mode))


def tile_widths_serving(N: int, arch: str | None = None, mode: str | None = None) -> tuple[int, ...]:
    """Every width of known_tile_bns(arch, mode) whose kernel serves N: those dividing N and,
    where the arch's last N tile may reach past N (tile_ragged_n), the others too (mode none
    weighs them all past the decode rows: dispatch.choose_bn, tuning.candidates)."""
    return tuple(bn for bn in known_tile_bns(arch, mode) if tile_fits_n(N, bn, arch, mode))


def choice_fits_n(N: int, schedule: str, bn: int, cta_group: int, arch: str | None,
                  mode: str | None = None) -> bool:
    """Whether the kernel of (schedule, bn, cta_group) on `arch` in `mode` serves N
    (decode_fits_n, tile_fits_n)."""
    if decode_schedule(schedule):
        return decode_fits_n(N, cta_group, arch, schedule, mode)
    if schedule == "splitkw":
        return N % N_MULTIPLE_NONE == 0   # its last 128-row W tile may reach past N
    return tile_fits_n(N, bn, arch, mode)


def n_multiple(arch: str | None, mode: str | None = None) -> int:
    """What N must be a multiple of on `arch` in `mode` (None: on the arch / mode found later,
    the loosest): MIN_BN on sm_100a, N_MULTIPLE_NONE in mode none on sm_90a, else N_MULTIPLE."""
    if arch == "sm_100a":
        return MIN_BN
    return N_MULTIPLE_NONE if mode in (None, "none") else N_MULTIPLE


def swapab_cta_group_bns(arch: str, mode: str, cta_group: int) -> tuple[int, ...]:
    """Token tiles of the (arch, mode) swapab kernels of `cta_group`."""
    return tuple(bt for bt in swapab_bns(arch, mode)
                 if decode_kernel_exists(arch, mode, bt, cta_group))


def implied_schedule(bn: int | None, cta_group: int | None) -> str | None:
    """The schedule a fixed BN / CTA group names when no schedule is given: 'splitk' for a
    cta_group only the splitk kernels have, 'swapab' for a width only the decode kernels have
    (SWAPAB_ALL_BNS, not BNS), 'tile' for any other fixed BN or CTA group, None when neither is
    fixed (the dispatcher decides); a cta_group only the swapab kernels have (3) names
    'swapab'."""
    if bn is None and cta_group is None:
        return None
    if cta_group in SPLITK_CTA_GROUPS and cta_group not in CTA_GROUPS:
        return "splitk"
    if cta_group in schedule_cta_groups(None, "swapab") and cta_group not in CTA_GROUPS:
        return "swapab"
    return "swapab" if bn in SWAPAB_ALL_BNS and bn not in BNS else "tile"


def x_tail_rows(M: int, tile: int, slice_rows: int | None = None) -> int:
    """Rows of x the last row tile of a call loads (1..tile): the box rows of `tma_t`. Given
    `slice_rows` (swapabx: each CTA of a cluster loads one slice of a token tile), the rows of
    the last tile's partial slice (1..slice_rows; slice_rows where no slice is partial, a box
    then unused).

    The sm_90a kernels load the last row tile of x (token tile of the decode schedule, BM rows of
    the tile schedule) through `tma_t`, whose box holds exactly the rows that exist, and complete
    the missing bytes on the stage's mbarrier themselves (`mbarrier.complete_tx`): a box reaching
    rows past M costs ~4 ns per such row per k-tile on the H200 (BENCHMARKS.md, 2026-11-30,
    "rows past M"), the zero fill of the TMA unit. The kernels compute the same number from `m`.
    """
    if M < 1 or tile < 1:
        raise ValueError(f"x_tail_rows needs M >= 1 and tile >= 1, got M={M}, tile={tile}")
    rows = M - (cdiv(M, tile) - 1) * tile
    return rows if slice_rows is None else (rows - 1) % slice_rows + 1

#: Scalar parameters in PTX order (after the TMA operands).
SCALAR_PARAMS = (
    Param("m", "u32", "Int32", "M, rows of this call", _where(_ALL, _ALL, _ALL) + _STREAMK,
          fake=1),
    Param("sk_ws_ptr", "u64", "Int64", "the stream's stream-K workspace: f32 [grid][BM * BN], one "
          "partial tile per CTA (streamk_workspace_bytes), in the MMA threads' register order",
          _STREAMK),
    Param("sk_flag_ptr", "u64", "Int64", "the stream's stream-K flag area (streamk_flag_words() "
          "int64 words, zeroed once): the abort word, then one flag per CTA", _STREAMK),
    Param("rank", "u32", "Int32", "this rank", _COLL),
    Param("out_ptr", "u64", "Int64", "the caller's output (private; never written by peers)",
          _where(COLLECTIVE_MODES, _ALL, _ALL)),
    Param("ws_ptr", "u64", "Int64", "own partial workspace [2 parity][workspace_rows][N] bf16 "
          "(sm_100a stores partials from registers; sm_90a reaches it through tma_c)",
          _where((), COLLECTIVE_MODES)),
    Param("flag_ptr", "u64", "Int64", "own flag area (flag_words() int64 words)", _COLL),
    Param("ar_ptr", "u64", "Int64", "own AR landing buffer [2][rows_pad][N] bf16 (AR; else 0)",
          _TILE_COLL),
    Param("land_ptr", "u64", "Int64", "own decode landing buffer [2 parity][tp src][land_rows][N] "
          "bf16: every rank pushes its partial rows into slot [src]", _SWAPAB),
    Param("peer_ws_ptr", "u64", "Int64", "device u64[tp]: every rank's workspace", _TILE_COLL),
    Param("push_tmap_ptr", "u64", "Int64", "device: TMA descriptors (TMA_DESC_BYTES each), one "
          "family of 2 x tp per PUSH_BOXES box, entry (family * 2 + parity) * tp + owner = "
          "owner's workspace slot [rank] of that parity from its guard (push_descriptor_specs): "
          "where the sm_90a unicast epilogue stores its partial rows of each owner's chunk",
          _where(COLLECTIVE_MODES, ())),
    Param("peer_flag_ptr", "u64", "Int64", "device u64[tp]: every rank's flag area", _COLL),
    Param("peer_ar_ptr", "u64", "Int64", "device u64[tp]: every rank's AR buffer (AR; else 0)",
          _TILE_COLL),
    Param("peer_land_ptr", "u64", "Int64", "device u64[tp]: every rank's landing buffer", _SWAPAB),
    Param("mc_ws_ptr", "u64", "Int64", "multicast address of the workspace (else 0)", _TILE_COLL),
    Param("mc_ar_ptr", "u64", "Int64", "multicast address of the AR buffer (else 0)", _TILE_COLL),
    Param("mc_land_ptr", "u64", "Int64", "multicast address of the landing buffer (else 0)",
          _SWAPAB),
    Param("err_ptr", "u64", "Int64", "error record (ERROR_RECORD_FIELDS i32), host-mapped",
          _COLL + _STREAMK),
    Param("timeout_ns", "u64", "Int64", "bound of every spin-wait", _COLL + _STREAMK),
    Param("rows_pad", "u32", "Int32", "AR-buffer rows per parity (rows_pad()); the workspace "
          "has workspace_rows(rows_pad, tp)", _TILE_COLL,
          fake=256),
    Param("land_rows", "u32", "Int32", "landing rows per source slot (land_rows())", _SWAPAB,
          fake=16),
    Param("m_tiles_max", "u32", "Int32", "flag-array rows (m_tiles_max())", _COLL, fake=2),
)


def tma_operands(arch: str, schedule: str = "tile") -> tuple[str, ...]:
    """The TMA operands ('a', 'b', 'c', 't') an (arch, schedule) kernel takes, in parameter order."""
    schedule = params_schedule(schedule)
    return tuple(op for op, (_, kernels) in TMA_OPERANDS.items() if (arch, schedule) in kernels)


def scalar_params(arch: str, mode: str, schedule: str = "tile") -> tuple[Param, ...]:
    """The scalar parameters of an (arch, mode, schedule) kernel, in PTX order."""
    if arch not in SCHEDULE_ARCHS.get(schedule, ()) or mode not in MODES:
        raise ValueError(f"no kernel contract for arch={arch!r}, mode={mode!r}, "
                         f"schedule={schedule!r}")
    return tuple(p for p in SCALAR_PARAMS if p.taken_by(arch, mode, schedule))


def kernel_params(arch: str, mode: str, schedule: str = "tile") -> tuple[tuple[str, str], ...]:
    """Every parameter of an (arch, mode, schedule) kernel as (name, ABI kind), in PTX order.

    The build checks this against the PTX `.entry` signature; the runtime packs exactly it.
    """
    out: list[tuple[str, str]] = []
    for op in tma_operands(arch, schedule):
        out += [(f"tma_{op}", "tma_desc"), (f"tma_{op}_shape", "i32x2")]
    out += [(p.name, p.kind) for p in scalar_params(arch, mode, schedule)]
    return tuple(out)


# ---- the kernel's symbol (PTX .entry, cubin function name: what a profiler shows) -------------
#: Each template names its kernel ``gemm_kernel.set_name_prefix(VARIANT, keep_mangled_name=False)``
#: (CuTe DSL 4.8.1): the DSL then emits ``<prefix>_cutlass_<n>``. Its ``cutlass`` component stays
#: on purpose: ptxas recognises it, and without it the same kernel gets different SASS (register
#: allocation). ``n`` is the kernel's index in its module: every module has one kernel.
SYMBOL_SUFFIX = "_cutlass_0"


def kernel_symbol(variant_name: str) -> str:
    """The PTX entry / cubin symbol of a variant's kernel (the build checks it)."""
    return variant_name + SYMBOL_SUFFIX


def variant_name_of(symbol: str) -> str | None:
    """The variant name a kernel symbol was made from, None if it is not such a symbol."""
    return symbol[:-len(SYMBOL_SUFFIX)] if symbol.endswith(SYMBOL_SUFFIX) else None


# ---- buffer geometry ---------------------------------------------------------------------------
def m_tiles_max(max_M: int) -> int:
    """Row tiles of the workspace per parity: even, so a 2-CTA cluster never leaves it."""
    return cdiv(max_M, 2 * BM) * 2


def rows_pad(max_M: int) -> int:
    """Workspace / AR-buffer rows per parity."""
    return m_tiles_max(max_M) * BM


def land_rows(max_M: int) -> int:
    """Rows per source slot of the decode landing buffer: the decode schedule serves M <= this."""
    return min(cdiv(max_M, 16) * 16, SWAPAB_MAX_ROWS)


#: Guard rows before each slot of a pushed workspace: a tile straddling two owners' chunks is
#: stored to the later owner with its box starting up to BM - 1 rows before that owner's first
#: row; TMA stores take no negative coordinates (an illegal instruction, seen on the H200), so
#: the box starts in the guard instead, and its rows before the owner's chunk land there.
PUSH_GUARD = BM


def workspace_rows(rows_pad_: int, tp: int) -> int:
    """Rows per parity of a rank's workspace [2][workspace_rows][N] (every kernel's parity
    stride): rows_pad for a pulled partial, plus a guard per slot for a pushed one."""
    return rows_pad_ + tp * PUSH_GUARD


def push_slot_rows(rows_pad_: int, tp: int) -> int:
    """Data rows of one source slot of a pushed workspace (the sm_90a unicast tile kernels).

    Such a workspace parity is [tp src][PUSH_GUARD + push_slot_rows][N]: slot src of owner o
    holds src's partial of o's row chunk, local row l = global row - o * chunk(M, tp), at
    push_row. rows_pad is a multiple of 256, so tp * push_slot_rows == rows_pad and
    chunk(M, tp) <= push_slot_rows for every M <= max_M.
    """
    return rows_pad_ // tp


def push_row(parity, src, local_row, rows_pad_, tp):
    """Workspace row (of [2 * workspace_rows][N]) of local row l of slot src, parity."""
    return (parity * workspace_rows(rows_pad_, tp)
            + src * (PUSH_GUARD + push_slot_rows(rows_pad_, tp)) + PUSH_GUARD + local_row)


def pushes_partials(arch: str, schedule: str, mode: str, transport: str | None) -> bool:
    """Whether a kernel pushes its partial rows into the owners' workspace slots (TMA stores
    from the epilogue; the owner then sums local memory) instead of leaving them in its own
    workspace for the owners to pull: the sm_90a unicast tile kernels. Multicast kernels pull
    (the switch sums a multimem load over ranks); sm_100a stores partials from registers."""
    return (arch == "sm_90a" and schedule == "tile" and mode in COLLECTIVE_MODES
            and transport == "unicast")


#: TMA boxes ([inner cols, rows]) and swizzles of the pushed partial stores, one descriptor
#: family each: the sm_90a tile epilogue's store tile (its EPI_TILE) is 128 rows x 64 bf16
#: through a 128-byte swizzled buffer where BN is a multiple of 64 (128-byte rows: fuller
#: NVLink writes), else (BN 224) 128 x 32 through a 64-byte swizzle. Family f of the push
#: table holds 2 x tp descriptors from entry f * 2 * tp.
PUSH_BOXES = (((32, 128), "64B"), ((64, 128), "128B"))


def push_family(epi_cols: int) -> int:
    """The push-table family of an epilogue store box epi_cols wide (ValueError if none)."""
    for f, ((cols, _), _) in enumerate(PUSH_BOXES):
        if cols == epi_cols:
            return f
    raise ValueError(f"no push descriptor family for a {epi_cols}-column store box")


def push_first_owner(t, m, tp):
    """The first owner whose row chunk row tile t's rows meet (with push_last_owner: the
    owners a pushed tile's rows are stored to and whose flag areas get its flag). Plain
    integer arithmetic: the kernels call these with DSL integers (and the DSL's min)."""
    return (t * BM) // ((m + tp - 1) // tp)


def push_last_owner(t, m, tp, imin=min):
    """The last owner (inclusive) whose row chunk row tile t's rows below m meet. For a tile
    past m it is below push_first_owner (tp divides BM); the kernels also skip such tiles."""
    return (imin(t * BM + BM, m) - 1) // ((m + tp - 1) // tp)


def push_coordinate(t, o, m, tp):
    """Row coordinate, in owner o's slot descriptor (which starts at the slot's guard), of the
    first row of row tile t: >= 0 for every owner from push_first_owner to push_last_owner."""
    return t * BM - o * ((m + tp - 1) // tp) + PUSH_GUARD


def push_descriptor_specs(ws_ptrs, rank: int, rows_pad_: int, N: int) -> list[tuple[int, int]]:
    """(base address, rows) of each TMA descriptor of one family of rank's push table, in
    table order [parity * tp + owner] (every family has the same): owner's workspace, parity half, slot [rank] from its guard, so a
    store box at row coordinate (global row - owner * chunk + PUSH_GUARD) is never negative.
    The TMA unit clips the box to the guard + slot rows: rows before the owner's chunk land in
    the guard, rows past the slot are dropped, rows within the slot but past the owner's chunk
    land in padding no one reads."""
    tp = len(ws_ptrs)
    slot = push_slot_rows(rows_pad_, tp)
    return [(int(ws_ptrs[o]) + push_row(par, rank, -PUSH_GUARD, rows_pad_, tp) * N * 2,
             PUSH_GUARD + slot) for par in (0, 1) for o in range(tp)]


def chunk(M: int, tp: int) -> int:
    """Rows each rank owns: rank r owns [r*chunk, min(M, (r+1)*chunk))."""
    return cdiv(M, tp)


def out_shape(mode: str, M: int, N: int, tp: int) -> tuple[int, int]:
    """RS: [ceil(M/tp), N] (rows past M are zeros); AR and none: [M, N]."""
    return (chunk(M, tp), N) if mode == "rs" else (M, N)


# ---- the tile schedule's visiting order (templates/schedule.py.j2) -----------------------------
# A persistent CTA takes work items w, w + grid, ...; item w -> (row block, column tile) by
# `grouped` over RASTER_ROW_BLOCKS row blocks at a time. The CTAs running at one time then cover
# one group's row blocks x a few column tiles, so W comes from DRAM about once per group instead
# of once per wave (ncu, mode none, M = 2048 / 8192, K = 2304: 135 -> 45 MB, 510 -> 203 MB;
# BENCHMARKS.md 2026-12-01).
RASTER_ROW_BLOCKS = 16


def grouped(i, rows, cols, group, imin=min, imax=max):
    """Item i of a rows x cols grid -> (row, col), `group` rows at a time: every column of a
    group, the rows fastest, then the next group (the last group may be short). A bijection on
    [0, rows * cols); past it the result is finite and meaningless (no division by zero)."""
    first = (i // (group * cols)) * group
    in_group = imax(imin(group, rows - first), 1)
    r = i - first * cols
    col = r // in_group
    return first + (r - col * in_group), col


def raster_unit_rows(cta_group, tp):
    """Row tiles (of BM rows) of one owner per group of the exchange's unit order: a group of
    RASTER_ROW_BLOCKS visits (row blocks of BM x cta_group rows, owners interleaved by
    tile_row) holds about this many of each owner's row tiles."""
    return max(1, RASTER_ROW_BLOCKS * cta_group // tp)


# ---- the exchange's work partition (tile schedule, rs/ar) --------------------------------------
# Pure integer arithmetic with no branch, shared by the kernels (which pass the DSL's min / max:
# the arguments are then DSL integers) and the tests (Python's). A *unit* of owner o is its rows
# of one row tile x one column tile; CTA `cta` of `ncta` reduces units cta, cta + ncta, ... of
# its own rank's chunk. AR copy item c of a CTA is the piece of unit cta + (c // tp) * ncta of
# owner (rank + c % tp) % tp (templates/comm_phase.py.j2, docs/KERNEL-CONTRACT.md step 4).

def _owner_rows(o, m, chunk_rows, imin=min, imax=max):
    """Owner o's rows [lo, hi) (empty past M) and the row tiles they meet (one, for an empty
    chunk that starts inside a tile: owner_units zeroes it)."""
    lo = o * chunk_rows
    hi = imax(lo, imin(m, lo + chunk_rows))
    return lo, hi, (hi + BM - 1) // BM - lo // BM


def owner_units(o, m, chunk_rows, n_tiles, imin=min, imax=max):
    """Units of owner o (0 for an empty chunk)."""
    lo, hi, row_tiles = _owner_rows(o, m, chunk_rows, imin, imax)
    return row_tiles * imin(hi - lo, 1) * n_tiles


def unit_piece(o, u, m, chunk_rows, n_tiles, group_rows, imin=min, imax=max):
    """Unit u of owner o -> (row tile, column tile, first row, end row). The units follow the
    GEMM's visiting order (templates/schedule.py.j2): the owner's row tiles in groups of
    `group_rows` (raster_unit_rows), every column tile of a group with the row tiles fastest.
    Past the owner's units (u >= owner_units) the result is finite and meaningless."""
    lo, _, row_tiles = _owner_rows(o, m, chunk_rows, imin, imax)
    lr, nt = grouped(u, row_tiles, n_tiles, group_rows, imin, imax)
    t = lo // BM + lr
    return t, nt, imax(t * BM, lo), imin(t * BM + BM, imin(m, lo + chunk_rows))


def cta_units(units, cta, ncta):
    """How many of `units` CTA cta takes (cta, cta + ncta, ...)."""
    return (units - cta + ncta - 1) // ncta


def copy_items(m, n_tiles, cta, ncta, tp, imin=min, imax=max):
    """AR copy items of CTA cta: tp per unit index, up to the owner with the most units."""
    chunk_rows = (m + tp - 1) // tp
    most = owner_units(0, m, chunk_rows, n_tiles, imin, imax)
    for o in range(1, tp):
        most = imax(most, owner_units(o, m, chunk_rows, n_tiles, imin, imax))
    return cta_units(most, cta, ncta) * tp


def copy_item_unit(c, rank, cta, ncta, tp):
    """AR copy item c of CTA cta on `rank` -> (owner, unit)."""
    i = c // tp
    return (rank + c - i * tp) % tp, cta + i * ncta


def ar_unicast_copies_out(owner, rank):
    """Unicast AR: whether `rank` copies owner's rows out of its AR buffer. Its own rows are
    not there: its reduction stores them straight into its output. (Multicast AR copies every
    owner's rows: one multimem.st put them in every rank's AR buffer.) Plain arithmetic, like
    the rest of the partition: the kernels evaluate it on DSL integers."""
    return owner != rank


# ---- flag area: 64-bit words holding epochs (a 32-bit epoch would wrap after 2^31 calls) -------
FLAG_BYTES = 8
FLAG_EPOCH = 0           # calls this rank has completed; a call runs as epoch [0] + 1
FLAG_FINISH = 1          # CTA-finish counter of the running call
FLAG_ABORT = 2           # non-zero after a time-out: every wait then gives up at once
FLAG_TILES = 16          # first partial-tile flag word (words 3..15 are reserved)


def tile_flag_word(parity, t, nt, src, m_tiles_max, n_tiles, tp):
    """Word of the partial flag of tile (t, nt), workspace parity `parity`, from rank `src`.

    Pulled workspaces (multicast, sm_100a): rank src sets slot src in its own area when its
    partial tile is in its own workspace. Pushed (sm_90a unicast): rank src sets slot src in
    the area of each owner of the tile's rows when those rows have landed in the owner's slot.
    """
    return ((parity * m_tiles_max + t) * n_tiles + nt) * tp + src + FLAG_TILES


def ar_flag_word(t, nt, owner, m_tiles_max, n_tiles, tp):
    """Word of the AR flag: `owner` has stored its rows of tile (t, nt) into this rank."""
    return FLAG_TILES + 2 * m_tiles_max * n_tiles * tp + (t * n_tiles + nt) * tp + owner


def flag_words(max_M: int, N: int, tp: int, bn: int = MIN_BN) -> int:
    """Words of one rank's flag area for tile width `bn` (one past the last AR flag).

    Groups size it with MIN_BN: every BN an op may pick then fits (a larger BN has fewer N
    tiles and uses a prefix of each region). The swapab schedule needs no tile flags: its
    landing data is its own flag (Lamport), only the header's epoch words.
    """
    mt, nt = m_tiles_max(max_M), cdiv(N, bn)
    return ar_flag_word(mt - 1, nt - 1, tp - 1, mt, nt, tp) + 1


# ---- stream-K (the streamk schedule, mode none): which CTA computes which k-tiles ------------
#: Fewest k-tiles a streamk CTA is given (launch grid: dispatch.launch_grid): below it, a tile
#: is split so finely that the partials' traffic and waits outweigh the even spread.
STREAMK_MIN_UNITS = 4


def streamk_split(num_work, clusters, lo=min):
    """Work items (in the kernel's order) whose k-tiles the streamk schedule spreads evenly over
    `clusters` (the kernel: its sets of clusters, streamk_lanes): none where the items fill whole
    waves; all of them where they are fewer than the clusters; else the last partial wave plus
    one full wave (so every share holds at least one item's k-tiles: each item is then shared
    by at most two or three). The items after them go one per cluster per wave, as in the tile
    schedule. Branch-free in `lo` (min), so the kernels evaluate it on DSL integers."""
    full = num_work // clusters
    rem = num_work - full * clusters
    has_rem = lo(rem, 1)
    has_full = lo(full, 1)
    return has_rem * (has_full * (clusters + rem) + (1 - has_full) * num_work)


def streamk_lanes(row_blocks, clusters, lo=min):
    """Clusters of one streamk set: the cluster row blocks of a call (they share each W tile)
    up to every cluster; a set takes one N tile of `lanes` row blocks at a time, its clusters at
    the same k-tiles (kernel: templates/sm90_gemm.py.j2)."""
    return lo(row_blocks, clusters)


def streamk_start(cluster, num_work, k_tiles, clusters, lo=min):
    """First k-tile unit (item * k_tiles + k) of `cluster`'s even share of the split items
    (streamk_split); cluster `clusters` gives the end of the last one's."""
    return cluster * (streamk_split(num_work, clusters, lo) * k_tiles) // clusters


def streamk_segments(cluster, num_work, k_tiles, clusters):
    """(item, first k-tile, end k-tile) of each piece of `cluster`'s share of the split items
    (the kernel's loop)."""
    u, end = (streamk_start(c, num_work, k_tiles, clusters) for c in (cluster, cluster + 1))
    out = []
    while u < end:
        t, k0 = divmod(u, k_tiles)
        k1 = min(k_tiles, k0 + end - u)
        out.append((t, k0, k1))
        u += k1 - k0
    return out


def streamk_pieces(cluster, row_blocks, n_tiles, k_tiles, clusters):
    """Host mirror of one streamk cluster's work (tests, tools): (row block, N tile, first
    k-tile, end k-tile) of each piece it computes, in order: the split pieces of its set's
    share, then its whole tiles. A row block past `row_blocks` is computed and never stored."""
    lanes = streamk_lanes(row_blocks, clusters)
    sets = clusters // lanes
    set_id, lane = divmod(cluster, lanes)
    if set_id >= sets:
        return []
    items = cdiv(row_blocks, lanes) * n_tiles
    tile = lambda item: (item // n_tiles * lanes + lane, item % n_tiles)  # noqa: E731
    out = [(*tile(t), k0, k1) for t, k0, k1 in streamk_segments(set_id, items, k_tiles, sets)]
    return out + [(*tile(w), 0, k_tiles)
                  for w in range(streamk_split(items, sets) + set_id, items, sets)]


def streamk_workspace_bytes(ctas: int, bn: int) -> int:
    """Bytes of a streamk workspace (one per stream) for a grid of `ctas`: one f32 BM x bn
    partial tile per CTA (each CTA stores at most one: its first piece, where that starts past
    k-tile 0)."""
    return ctas * BM * bn * 4


def streamk_flag_words(ctas: int) -> int:
    """Words of a streamk flag area (one per stream): FLAG_TILES header words (FLAG_ABORT among
    them), then one flag per CTA (1 while its partial waits to be summed; the CTA that sums it
    clears it)."""
    return FLAG_TILES + ctas


# ---- error record: i32 words, first writer wins (atom.cas on `code`) ---------------------------
ERROR_RECORD_FIELDS = ("code", "rank", "tile_m", "tile_n", "peer", "expected", "seen", "epoch")
ERROR_RECORD_WORDS = len(ERROR_RECORD_FIELDS)

ERR_TIMEOUT_PARTIAL = 1
ERR_TIMEOUT_AR = 2
ERR_TIMEOUT_EPOCH = 3
ERR_PIPELINE_STALL = 4
ERR_TIMEOUT_STREAMK = 5
ERROR_CODES = {
    ERR_TIMEOUT_PARTIAL: "timeout on partial flag",
    ERR_TIMEOUT_AR: "timeout on AR flag",
    ERR_TIMEOUT_EPOCH: "timeout on peer epoch",
    ERR_PIPELINE_STALL: "pipeline mbarrier wait past its bound "
                        "(expected = k-tile, seen = 0 free stage / 1 TMA bytes / 2 the splitk "
                        "cluster's other CTAs)",
    ERR_TIMEOUT_STREAMK: "timeout on a stream-K partial tile (mode none; peer = the CTA whose "
                         "partial it waited for, tile = (row tile, N tile))",
}
