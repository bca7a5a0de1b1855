#!/usr/bin/env python3
"""Mode none at fixed kernel choices against torch.mm, timed in alternation (a probe, not a
test; needs a GPU).

bench_decode.py times torch.mm first and then each candidate once, in a fixed order; on the
H200 one kernel read 42.6 and 49.5 us in the same sweep (the clock follows the power of the
last few milliseconds), so a sequential sweep can rank two close choices by when they ran.
This probe times every path of a point in `--rounds` rounds, each round in a fresh random
order, and reports medians: torch.mm and, per rule, the (schedule, bn, cta_group) it picks.

Rules: `dispatch` (the op's own: a tuning table of the cache root if one exists for the
shape, else its rules), `fill` (dispatch.choose_none_by_fill where it applies; `fill-flat`:
without its prices; `fill-cg12`: without the 192-row W tile, cta_group 3), `rules`
(the rules before it: choose_schedule + token tile + choose_bn over contract.BNS, so past the
decode rows the BN rule before the eleventh session's widths 160 / 192), `fillk-bns` (the op's
fill rule over BNS), `fillk-noragged` (the op's fill rule without mode none's wide kernel
past N: before the twelfth session), `fill-x80.96.112` (the fill
rule without those token tiles), `cands` (every candidate of
the tuning sweep at M, tuning.candidates), `nosplitkw` (the op's rule without a table before
the splitkw schedule, fifteenth session), `nofill` (the same without the fill rule: what an N
no multiple of 64 got before the fifteenth session), `noraggedsplitk` (the op's rule before
splitk reached past N, sixteenth session: the fifteenth session's splitkw rule at an N no
multiple of 64, ragged_splitkw_before, then the fill rule without splitk; the op's dispatch
elsewhere), `bounds16` (the op's own choice with the K bounds before the seventeenth session's
refit, BOUNDS16), `tilecg2` (the op's own choice with the tile schedule's cta_group by M alone,
before the eighteenth session), `fill17` (the op's own choice with the fill rule before the
eighteenth session's model of rows that are not 128-byte lines), `fill19` (the op's own choice
without the twentieth session's L2-traffic model of such rows), `tile19` (the op's own choice
with the tile schedule's cta_group 1 priced as before the twentieth session on aligned rows),
`splitk20` (the op's own choice with choose_splitk's clusters of 2 first off the lines at every
M, as before the twenty-first session), `splitkwide22` (the op's own choice with splitk at N
3648..4096 from 56 k-tiles, as before the twenty-third session),
`splitk-c2` / `splitk-c4` (the splitk schedule
at M's token tile, dispatch.splitk_default, with that cluster size), or a fixed choice written
`swapab64c2`, `swapab112c3`, `tile224c1`, `splitk32c4`. Every path's output is checked against an fp32 reference first (output poisoned
with NaN; tolerance MAX_RELERR). `--both-regimes` times every path with an L2-resident weight
(warm) and with the weight cycled through copies that exceed the L2 (cold), in the same
rounds; a path's score is then the worse of its two ratios to torch.mm, as the tables use.

    PYTHONPATH=. python3 tools/probes/choice_ab.py --shapes 4096:2048,8192:3584 \\
        --ms 128,256,384,512 --rules rules,fill --json out.json
"""
from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
from arg_types import ints, points, shapes  # noqa: E402  (tools/ is on sys.path)

from codegen import contract  # noqa: E402
from codegen.runtime import dispatch  # noqa: E402

_FIXED = re.compile(r"^(tile|swapabx|swapab|splitkw|splitk|streamk)(\d+)c([1-4])$")
_SPLITK = re.compile(r"^splitk-c([24])$")
#: Largest relative error (baselines.relerr against fp32) a path may show before it is reported
#: wrong (stricter than the benchmarks' baselines.MAX_RELERR).
MAX_RELERR = 2e-2


def rules_choice(M: int, N: int, arch: str, sm_budget: int, land_rows: int):
    """What op.choice picked for mode none without a table before the wave-fill rule."""
    schedule = dispatch.choose_schedule(M, arch, land_rows, None, "none")
    if schedule == "swapab":
        return (schedule, dispatch.swapab_default_token_tile(M, "none", None, arch),
                dispatch.swapab_cta_group(None, M, "none", arch))
    cg = dispatch.choose_cta_group(M)
    return schedule, dispatch.choose_bn(M, N, None, ctas=sm_budget, cluster=cg, mode="none"), cg


#: The fifteenth session's dispatch.choose_ragged_splitkw (removed in the sixteenth, when splitk
#: reached past N and took every point it took): splitkw with clusters of 4 at an N no multiple
#: of 64, M <= 256, K >= 64 k-tiles, every (W tile, token tile) pair in one wave. The
#: `noraggedsplitk` rule's reconstruction; tests/test_splitkw_dispatch.py checks that choose_splitk
#: has a choice wherever it had one.
RAGGED_SPLITKW_KS = 4
RAGGED_SPLITKW_MAX_M = 256
RAGGED_SPLITKW_MIN_K_TILES = 64   # the fifteenth session's dispatch.SPLITK_MIN_K_TILES[4]


def ragged_splitkw_before(M: int, N: int, K: int | None, arch: str, sm_budget: int,
                          slots: dict[int, int]) -> tuple[str, int, int] | None:
    ks = RAGGED_SPLITKW_KS
    if (K is None or N % contract.SWAPAB_BM == 0 or arch not in contract.SCHEDULE_ARCHS["splitkw"]
            or ks not in slots or M > RAGGED_SPLITKW_MAX_M
            or contract.k_tiles(K) < RAGGED_SPLITKW_MIN_K_TILES):
        return None
    if not dispatch.splitkw_one_wave(M, N, ks, sm_budget, slots):
        return None
    return "splitkw", dispatch.SPLITKW_RULE_BT, ks


#: The dispatch's bounds before the seventeenth session's refit (fitted against the splitk
#: handoff with 2 KS + 2 MEMBAR.ALL.GPU per tile; the spread clause with clusters of 2 only):
#: the `bounds16` rule is the op's own choice (its table, else its rules) with these set back.
BOUNDS16 = {"SPLITK_MIN_K_TILES": {2: 34, 4: 64}, "SPLITK_LONG_K_TILES": 64,
            "SPLITKW_MIN_K_TILES": {2: 24, 4: 40}, "SPLITK_SPREAD_MIN_K_TILES": 44,
            "SPLITK_SPREAD_FIRST_KS": None}


@contextlib.contextmanager
def patched(module, **values):
    """`module`'s attributes set to `values` inside the block (an earlier session's rule
    rebuilt from today's code), restored after it."""
    saved = {name: getattr(module, name) for name in values}
    try:
        for name, value in values.items():
            setattr(module, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


#: Rules that are the op's own choice with some of dispatch's constants set back (need the
#: op's choice): `bounds16` (the K bounds before the seventeenth session), `tilecg2` (the tile
#: schedule's cta_group by M alone, before the eighteenth session's dispatch.choose_tile),
#: `fill17` (the fill rule taking every K's rows as 128-byte lines, before the eighteenth
#: session's FILL_PRICE_UNALIGNED_DECODE), `noswapabx` (without the nineteenth session's
#: swapabx rule, dispatch.choose_swapabx), `fill19` (without the twentieth session's L2-traffic
#: model of rows off the lines, dispatch.choose_none_unaligned), `tile19` (the tile schedule's
#: cta_group 1 priced 1.2 on aligned rows too, before the twentieth session's
#: TILE_CG1_PRICE_ALIGNED), `splitk20` (choose_splitk's choice before the L2-traffic model at
#: every M, before the twenty-first session's UNALIGNED_SPLITK_FIRST_MAX_M), `lines20` (a call
#: with only x's rows off the lines dispatched as one with both off, before the twenty-first
#: session's WEIGHT_ON_LINES_RULE: for probes that pass such a layout), `relaidsplitkw` (the
#: candidate dispatch.WEIGHT_ON_LINES_SPLITKW turned on; with --relay-weight), `splitkwide22` /
#: `splitkwide23` / `filltile23` / `filltile24` (the rules before the twenty-third / twenty-fourth
#: sessions' changes), `splitkshort24` (without the twenty-fifth session's small-N, short-K
#: clause, dispatch.choose_splitk_short), `splitkshort192` (that clause up to M 192 only, as
#: first held out), `splitkshort25` / `unaligned25` / `rules25` (the twenty-sixth session's
#: changes set back: that clause up to M 384; the L2-traffic model's decode price 1.8; both),
#: `splitkshort26` / `ragged26` / `rules26` (the twenty-seventh session's set back: that clause
#: at most 30 64-row W tiles; the fill rule leaving an N no multiple of 64 past M 448; both),
#: `l2share27` (the L2-traffic model's share of 2.5 and its row prices at every K off the
#: lines, before the twenty-eighth session's UNALIGNED_L2_SHARE_SECTOR_ROWS /
#: UNALIGNED_SECTOR_ROW_FACTOR), `sector28a` (that session's first cut: the share 2.0 alone),
#: `kwtiles28` (the twenty-ninth session's changes set back: the model weighing splitkw at token
#: tile 128 only, choose_splitk's clusters of 2 first up to M 128), `c2first28` (the latter
#: alone), `nostreamk30` (the thirtieth session's streamk rule off: dispatch.STREAMK_RULE).
SHORT25 = {"SPLITK_SHORT_MAX_M": 384}
SHORT26 = {"SPLITK_SHORT_MAX_W_TILES": 30}
RAGGED26 = {"FILL_RAGGED_MAX_M": 448}
UNALIGNED25 = {"UNALIGNED_ROW_COST": {"tile": 1.2, "decode": 1.8}}
OP_RULES = {"bounds16": BOUNDS16,
            "tilecg2": {"TILE_CG1_PRICE": float("inf"), "TILE_CG1_PRICE_ALIGNED": float("inf")},
            "tile19": {"TILE_CG1_PRICE_ALIGNED": 1.2},
            "fill17": {"rows_aligned": lambda K: True},
            "noswapabx": {"SWAPABX_MAX_M": 0},
            "fill19": {"UNALIGNED_MODEL": False},
            "splitk20": {"UNALIGNED_SPLITK_FIRST_MAX_M": {2: 512, 4: 512}},
            "lines20": {"WEIGHT_ON_LINES_RULE": False},
            "relaidsplitkw": {"WEIGHT_ON_LINES_SPLITKW": True},
            "splitkwide22": {"SPLITK_WIDE_MIN_K_TILES": 56},
            "splitkwide23": {"SPLITK_WIDE_SHORT_K_MAX_M": {}},
            "filltile23": {"FILL_TILE_EVERY_WIDTH": False, "FILL_PRICE_TILE": 1.35},
            "filltile24": {"FILL_TILE_PARTIAL_ROWS": 0},
            "splitkshort24": {"SPLITK_SHORT_MAX_W_TILES": 0},
            "splitkshort192": {"SPLITK_SHORT_MAX_M": 192},
            "splitkshort25": SHORT25,
            "unaligned25": UNALIGNED25,
            "rules25": {**SHORT25, **UNALIGNED25},
            "splitkshort26": SHORT26,
            "ragged26": RAGGED26,
            "rules26": {**SHORT26, **RAGGED26},
            "l2share27": {"UNALIGNED_L2_SHARE_SECTOR_ROWS": 2.5,
                          "UNALIGNED_SECTOR_ROW_FACTOR": 1.0},
            "sector28a": {"UNALIGNED_L2_SHARE_SECTOR_ROWS": 2.0,
                          "UNALIGNED_SECTOR_ROW_FACTOR": 1.0},
            "kwtiles28": {"SPLITKW_MODEL_TILES": {128: (2, 4)},
                          "UNALIGNED_SPLITK_FIRST_MAX_M": {2: 128, 4: 512}},
            "c2first28": {"UNALIGNED_SPLITK_FIRST_MAX_M": {2: 128, 4: 512}},
            "nostreamk30": {"STREAMK_RULE": False}}


def earlier_choice(rule: str, op_choice, M: int) -> tuple[str, int, int]:
    """op_choice(M) (an op's .choice) with dispatch's OP_RULES[rule] constants set back."""
    with patched(dispatch, **OP_RULES[rule]):
        return tuple(op_choice(M))


def resolve(rule: str, M: int, N: int, arch: str, sm_budget: int, land_rows: int,
            K: int | None = None, slots: dict[int, int] | None = None,
            kw_slots: dict[int, int] | None = None):
    """(schedule, bn, cta_group) of `rule` at (M, N), or None for `fill` where the op's own
    dispatch is not the fill rule (then the path is the op's dispatch as is). `fillk` is the
    op's rule without a table (the fill rule given K and the splitk kernels' cluster `slots`);
    `fillk-bns`: the same weighing only the tile widths every arch has (contract.BNS: before
    the eleventh session's 160 / 192); `fillk-noragged`: the same with mode none's wide decode
    kernel needing 128 | N again (before the twelfth session); `fillk-nospread`: the same without splitk past one cluster's token tile
    (dispatch.choose_splitk's spread clause, seventh session); `fillk-first`: the same with
    the first of equally priced options instead of the busiest (seventh session)."""
    m = _FIXED.match(rule)
    if m:
        return m.group(1), int(m.group(2)), int(m.group(3))
    m = _SPLITK.match(rule)
    if m:   # splitk at its default token tile for M, cluster size fixed
        return ("splitk", *dispatch.splitk_default(M, 1 << 20, None, int(m.group(1))))
    if rule == "rules":
        return rules_choice(M, N, arch, sm_budget, land_rows)
    if rule == "fill":
        return dispatch.choose_none_by_fill(M, N, arch, sm_budget, land_rows)
    if rule in ("fillk", "fillk-nospread", "fillk-first", "fillk-bns"):
        kw = dict(K=K, cluster_slots=slots or {}, spread=rule != "fillk-nospread",
                  busiest=rule != "fillk-first")
        if rule == "fillk-bns":   # without the tile widths 160 / 192 (eleventh session)
            kw["widths"] = contract.tile_widths(N)
        return dispatch.choose_none_by_fill(M, N, arch, sm_budget, land_rows, **kw)
    if rule == "fillk-noragged":   # before mode none's wide kernel reached past N (twelfth)
        with patched(contract, swapab_ragged_n=lambda cg, arch: cg == 3):
            return resolve("fillk", M, N, arch, sm_budget, land_rows, K, slots)
    if rule.startswith("fill-"):
        # the fill rule of the fifth / sixth sessions (its tile options and price before the
        # twenty-fourth session: OP_RULES["filltile23"]) without a later part
        with patched(dispatch, **OP_RULES["filltile23"]):
            return _fill_before(rule, M, N, arch, sm_budget, land_rows)
    if rule in ("nosplitkw", "nofill"):
        # nosplitkw: the op's rule without a table before splitkw (fifteenth session); nofill:
        # the same without the fill rule (before the fifteenth session at an N no multiple of
        # 64, where the fill rule did not apply)
        fill = (resolve("fillk", M, N, arch, sm_budget, land_rows, K, slots)
                if rule == "nosplitkw" else None)
        if fill is not None:
            return fill
        schedule = dispatch.choose_schedule(M, arch, land_rows, None, "none")
        if schedule == "swapab":
            return (schedule, dispatch.swapab_default_token_tile(M, "none", None, arch),
                    dispatch.swapab_cta_group(None, M, "none", arch, N))
        cg = dispatch.choose_cta_group(M)
        return "tile", dispatch.choose_bn(M, N, None, sm_budget, cg, "none", arch), cg
    if rule == "noraggedsplitk":
        # the op's rule without a table before splitk reached past N (sixteenth session): at an
        # N no multiple of 64 ragged_splitkw_before first (given the splitkw kernels'
        # `kw_slots`), then the fill rule without splitk; elsewhere the op's rule as it is
        if N % contract.SWAPAB_BM == 0:
            return None
        before = ragged_splitkw_before(M, N, K, arch, sm_budget, kw_slots or {})
        if before is not None:
            return before
        with patched(contract, splitk_ragged_n=lambda arch, mode: False):
            return dispatch.choose_none_by_fill(M, N, arch, sm_budget, land_rows, K=K,
                                                cluster_slots=slots or {})
    if rule == "dispatch":
        return None
    raise ValueError(f"unknown rule '{rule}': dispatch, nosplitkw, nofill, noraggedsplitk, fill, "
                     "fillk, fillk-bns, "
                     "fillk-noragged, "
                     "fillk-nospread, "
                     "fillk-first, fill-flat, "
                     "fill-cg12, fill-x<tiles>, rules, "
                     "splitk-c2 / splitk-c4 (splitk at M's token tile), or e.g. swapab64c2 / "
                     "tile224c1 / splitk32c4")


def _fill_before(rule: str, M: int, N: int, arch: str, sm_budget: int, land_rows: int):
    if rule == "fill-flat":   # the fill rule without its prices (before the fifth session)
        return dispatch.choose_none_by_fill(M, N, arch, sm_budget, land_rows, priced=False)
    if rule == "fill-cg12":   # the fill rule without cta_group 3 (before the sixth session)
        return dispatch.choose_none_by_fill(M, N, arch, sm_budget, land_rows, cta_groups=(1, 2))
    if rule.startswith("fill-x"):   # the fill rule without some token tiles: fill-x80.96.112
        drop = {int(v) for v in rule[len("fill-x"):].split(".") if v.isdigit()}
        bns = tuple(b for b in contract.swapab_bns(arch, "none") if b not in drop)
        return dispatch.choose_none_by_fill(M, N, arch, sm_budget, land_rows, bns)
    raise ValueError(f"unknown rule '{rule}': fill-flat, fill-cg12, fill-x<tiles>")


def expand(rules: list[str], M: int, N: int, arch: str, sm_budget: int, land_rows: int,
           K: int | None = None, slots: dict[int, int] | None = None,
           kw_slots: dict[int, int] | None = None, op_choice=None) -> dict[str, tuple | None]:
    """{rule name: choice} of the named rules, `cands` expanded into its candidates (each
    named by its label; given K, the splitk ones too); OP_RULES need `op_choice`."""
    from codegen.runtime.tuning import candidates

    out = {}
    for r in rules:
        if r in OP_RULES:
            out[r] = earlier_choice(r, op_choice, M)
        elif r == "cands":
            out.update({label(c): c for c in candidates(M, N, arch, "none", K=K)})
        else:
            out[r] = resolve(r, M, N, arch, sm_budget, land_rows, K, slots, kw_slots)
    return out


def add_l2_promotion(ap: argparse.ArgumentParser) -> None:
    """The probes' `--l2-promotion` option (this one and row_layout.py)."""
    from codegen.runtime import tma
    ap.add_argument("--l2-promotion", choices=tuple(tma.L2_PROMOTIONS), default=None,
                    help="probe only: encode every TMA descriptor with this L2 promotion "
                         f"(codegen.runtime.tma.L2_PROMOTION, {tma.L2_PROMOTION} by default)")


def apply_l2_promotion(args) -> None:
    """Set tma.L2_PROMOTION from `--l2-promotion` before any descriptor is encoded."""
    if args.l2_promotion:
        from codegen.runtime import tma
        tma.L2_PROMOTION = args.l2_promotion


def choice_name(choice: tuple[str, int, int]) -> str:
    """A (schedule, bn, cta_group) written as a fixed choice (_FIXED): ('swapab', 64, 2) ->
    swapab64c2."""
    return f"{choice[0]}{choice[1]}c{choice[2]}"


def label(choice) -> str:
    return "dispatch" if choice is None else choice_name(choice)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", type=shapes, default=None, help="N:K,N:K,...")
    ap.add_argument("--ms", type=ints, default=None)
    ap.add_argument("--points", type=points, default=None,
                    help="N:K:M,... (instead of --shapes x --ms: only these points, in one "
                         "process)")
    ap.add_argument("--rules", default="rules,fill")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--both-regimes", action="store_true",
                    help="time each path with a warm and with a cold weight (see above)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--relay-weight", action="store_true",
                    help="pass W re-laid into rows of whole 128-byte lines "
                         "(weight_in_aligned_rows, as RowParallelLinear does), x contiguous; "
                         "`dispatch` and the OP_RULES rules take that layout")
    ap.add_argument("--decode-rows", type=int, default=None,
                    help="probe only: let mode none's decode schedules serve up to this many rows "
                         "(contract.SWAPAB_MAX_ROWS, 512, raised in this process), so a fixed "
                         "swapab / splitk choice can be timed past 512 rows")
    add_l2_promotion(ap)
    args = ap.parse_args(argv)
    if (args.points is None) == (args.shapes is None or args.ms is None):
        ap.error("give --shapes and --ms, or --points")
    ms_of = args.points or {shape: args.ms for shape in args.shapes}
    apply_l2_promotion(args)
    if args.decode_rows:
        from codegen import contract
        contract.SWAPAB_MAX_ROWS = max(contract.SWAPAB_MAX_ROWS, args.decode_rows)
    rules = [r for r in args.rules.split(",") if r]
    for r in rules:  # fail on a typo before touching the GPU
        if r != "cands" and r not in OP_RULES:
            resolve(r, 16, 4096, "sm_90a", 132, 512)

    import torch

    from baselines import relerr
    from bench_decode import time_paths
    from codegen.runtime import GemmRsAr, weight_in_aligned_rows
    from codegen.runtime.errors import InputError
    from graph_timing import rotating, weight_copies, weight_of

    rng = random.Random(args.seed)
    dev = torch.cuda.current_device()
    sms = torch.cuda.get_device_properties(dev).multi_processor_count
    l2_bytes = torch.cuda.get_device_properties(dev).L2_cache_size
    regimes = ["warm", "cold"] if args.both_regimes else ["warm"]
    rows = []
    for (N, K), shape_ms in ms_of.items():
        w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
        if args.relay_weight:
            w = weight_in_aligned_rows(w)
        srcs = {"warm": w}
        if args.both_regimes:
            copies = weight_copies(w, l2_bytes)
            if args.relay_weight:   # (clone() of a strided view is contiguous)
                copies = [w] + [weight_in_aligned_rows(c) for c in copies[1:]]
            srcs["cold"] = rotating(copies)
        ops = {}
        probe = GemmRsAr(max(shape_ms), N, K, "none")
        arch, land = probe.arch, probe.land_rows
        # the OP_RULES rules for the layout the calls pass (x contiguous; W re-laid or not)
        op_choice = probe.choice if not args.relay_weight else (
            lambda M, probe=probe, K=K: probe.choice(M, aligned=dispatch.rows_aligned(K),
                                                     weight_aligned=True))
        for M in shape_ms:
            x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
            ref = x.float() @ w.float().t()
            paths = {"torch.mm": None}
            chosen = {}
            for r, c in expand(rules, M, N, arch, sms, land, K, probe.splitk_slots(),
                               probe.splitkw_slots(), op_choice).items():
                chosen[r] = label(c)
                paths.setdefault(label(c), c)
            calls, errors, variants = {}, {}, {}
            for name, c in paths.items():
                out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                if name == "torch.mm":
                    fn = (lambda o: (lambda src: torch.mm(x, weight_of(src).t(), out=o)))(out)
                else:
                    if name not in ops:
                        kw = {} if c is None else dict(schedule=c[0], bn=c[1], cta_group=c[2])
                        try:
                            ops[name] = GemmRsAr(max(shape_ms), N, K, "none", **kw)
                        except InputError as exc:   # a fixed choice that cannot serve N
                            errors[name] = f"InputError: {str(exc)[:160]}"
                            continue
                    op = ops[name]
                    fn = (lambda o, op=op: (lambda src: op(0, x, weight_of(src), out=o)))(out)
                try:
                    fn(w)
                    torch.cuda.synchronize()
                except Exception as exc:  # a kernel this build lacks: recorded, not fatal
                    errors[name] = f"{type(exc).__name__}: {str(exc)[:160]}"
                    continue
                if name in ops:   # the kernel the path ran (what `dispatch` picked)
                    variants[name] = ops[name].last_launch.get(0, {}).get("variant")
                rel = relerr(out, ref)
                if not rel <= MAX_RELERR:
                    errors[name] = rel
                    continue
                calls[name] = fn
            t = time_paths(calls, regimes, srcs, args.iters, args.replays, args.rounds, rng)
            med = {f"{n}/{reg}": t[n][reg] for n in calls for reg in regimes}
            ratio = {n: min(med[f"torch.mm/{reg}"] / med[f"{n}/{reg}"] for reg in regimes)
                     for n in calls}
            t_mm = med["torch.mm/warm"]
            row = {"N": N, "K": K, "M": M, "rounds": args.rounds, "regimes": regimes,
                   "us": med, "rules": chosen, "wrong": errors, "variants": variants,
                   "vs_torch": ratio,
                   "best": max((n for n in calls if n != "torch.mm"), key=ratio.get, default=None)}
            rows.append(row)
            if args.json:   # after every point, so a run cut short by its timeout keeps them
                args.json.write_text(json.dumps(rows, indent=1))
            shown = [r for r in rules if r != "cands"]
            cells = "  ".join(f"{r}={chosen[r]}:{ratio.get(chosen[r], float('nan')):.2f}"
                              for r in shown)
            if row["best"]:
                cells += f"  best={row['best']}:{ratio[row['best']]:.2f}"
            if variants.get("dispatch"):
                cells += f"  (dispatch ran {variants['dispatch']})"
            print(f"N={N:5d} K={K:5d} M={M:4d} torch.mm {t_mm:7.1f} us | {cells}"
                  + (f" | WRONG {errors}" if errors else ""), flush=True)
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
