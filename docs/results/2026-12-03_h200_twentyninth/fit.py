#!/usr/bin/env python3
"""Offline replay (host only, no GPU) for the twenty-ninth session: the L2-traffic model weighing
the splitkw kernels' new token tiles 96 / 160 (dispatch.SPLITKW_MODEL_TILES, at most
SPLITKW_MODEL_MAX_TILES token tiles, every pair in one wave) and choose_splitk's clusters of 2
yielding to it past M 64 (UNALIGNED_SPLITK_FIRST_MAX_M, was 128). Scored as the pick's share
of the best candidate timed (worse of warm and cold) on:
  call 1 A (`gap`: the twenty-eighth session's worst shapes; the splitkw kernels and the best
  kernels found there), call 1 B (`fresh`: six fresh shapes, every candidate) -- the fit;
  call 3 F (`fresh`: eight fresh shapes, every candidate) -- held out;
  call 3 P (`pool`: the 27 earlier points whose pick moved, three rules timed) -- held out.
The rule as held out in call 3 is `held`; `landed` drops splitkw160 in clusters of 2 (lost at
N >= 4900, M 160 in both calls 1 and 3).

    PYTHONPATH=. python3 docs/results/2026-12-03_h200_twentyninth/fit.py
"""
import importlib.util
import json
import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
_spec = importlib.util.spec_from_file_location(
    "fit28", HERE.parent / "2026-12-03_h200_twentyeighth" / "fit.py")
fit28 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit28)
from codegen.runtime import dispatch  # noqa: E402

fit24, fit26, geo = fit28.fit24, fit28.fit26, fit28.geo
SESSION = "2026-12-03_h200_twentyninth"
OLD_FIRST = {2: 128, 4: 512}
RULES = {
    "before": dict(SPLITKW_MODEL_TILES={128: (2, 4)}, UNALIGNED_SPLITK_FIRST_MAX_M=OLD_FIRST),
    "tiles only": dict(SPLITKW_MODEL_TILES={96: (2, 4), 128: (2, 4), 160: (2, 4)},
                       UNALIGNED_SPLITK_FIRST_MAX_M=OLD_FIRST),
    "held": dict(SPLITKW_MODEL_TILES={96: (2, 4), 128: (2, 4), 160: (2, 4)}),
    "landed": dict(SPLITKW_MODEL_TILES={96: (2, 4), 128: (2, 4), 160: (4,)}),
    "landed, first 128": dict(SPLITKW_MODEL_TILES={96: (2, 4), 128: (2, 4), 160: (4,)},
                              UNALIGNED_SPLITK_FIRST_MAX_M=OLD_FIRST),
    "no 160": dict(SPLITKW_MODEL_TILES={96: (2, 4), 128: (2, 4)}),
}
_VARIANT = re.compile(r"gemm_none_sm90a_(?:(swapabx|swapab|splitkw|splitk)_)?bn(\d+)_cg(\d)_bf16")


def lab(variant: str) -> str:
    s, bn, cg = _VARIANT.fullmatch(variant).groups()
    return f"{s or 'tile'}{bn}c{cg}"


def pool_rows() -> list[dict]:
    """Call 3 P: each point's three rules' shares of the best of them (torch.mm / ours)."""
    with tarfile.open(HERE / "call3" / "r.tgz") as tar:
        rows = json.load(tar.extractfile("r/pool.json"))
    for r in rows:
        r["cands"] = {k if k != "dispatch" else lab(r["variants"]["dispatch"]): v
                      for k, v in r["vs_torch"].items() if k != "torch.mm"}
    return rows


def picks(rows, consts) -> list[str]:
    fit24._OPS.clear()
    with fit26.patched(dispatch, **consts):
        out = [fit24.choice(r["N"], r["K"], r["M"]) for r in rows]
    fit24._OPS.clear()
    return out


def table(label: str, rows: list[dict], show: str | None = None) -> None:
    print(f"{label}: {len(rows)} points off the lines (share of the best timed; moved against "
          f"`before`)")
    base = picks(rows, RULES["before"])
    for name, consts in RULES.items():
        got = picks(rows, consts)
        s = [r["cands"][p] / max(r["cands"].values()) if p in r["cands"] else None
             for r, p in zip(rows, got)]
        timed = [x for x in s if x is not None]
        ratios = [r["cands"][p] / r["cands"][b] for r, b, p in zip(rows, base, got)
                  if b != p and p in r["cands"] and b in r["cands"]]
        print(f"  {name:18s} of best {geo(timed):.4f} (untimed {s.count(None)})  moved "
              f"{sum(b != p for b, p in zip(base, got))}: {geo(ratios):.3f}x where both timed "
              f"({len(ratios)}, {sum(x > 1 for x in ratios)} won, "
              f"{sum(x < 0.97 for x in ratios)} below 0.97x)")
    if show:
        for r, b, p in zip(rows, base, picks(rows, RULES[show])):
            if b != p:
                c = r["cands"]
                print(f"    N {r['N']:5d} K {r['K']:5d} M {r['M']:3d}: {b} -> {p}  "
                      f"{c.get(p, float('nan')) / c.get(b, float('nan')):.3f}x")


def main():
    table("call 1 A (gap shapes; fit)", [r for r in fit24.load(SESSION, "call1", "gap")
                                          if not dispatch.rows_aligned(r["K"])])
    table("call 1 B (fresh shapes; fit)", [r for r in fit24.load(SESSION, "call1", "fresh")
                                            if not dispatch.rows_aligned(r["K"])])
    table("call 3 F (fresh shapes; held out)", fit24.load(SESSION, "call3", "fresh"), "landed")
    table("call 3 P (earlier points; held out)", pool_rows(), "landed")
    pool = fit28.rows_off()
    base = picks(pool, RULES["before"])
    got = picks(pool, RULES["landed"])
    print(f"pooled earlier points ({len(pool)}): `landed` moves "
          f"{sum(a != b for a, b in zip(base, got))} picks")


if __name__ == "__main__":
    main()
