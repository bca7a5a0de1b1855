#!/usr/bin/env python3
"""Re-pick mode-none tuning rows from candidate sweeps (runs on the CPU, after a GPU sweep).

    python3 tools/merge_tuning.py --base generated --sweep s1.json --sweep s2.json --out DIR

`--sweep` files are `tools/bench_decode.py --json` outputs (candidate sweeps, not
--dispatch-only; --both-regimes scores each candidate by the worse of its warm and cold ratio
to torch.mm, as bench_decode's own pick does). A candidate's score at (K, M) is its lowest over
the sweeps (it must have run in every one). For each mode-none table under `<base>/tuning/`:
- a row whose M was swept takes the best candidate when it scores more than `--margin` times
  the row's current choice (or the current choice was not swept), else it stays;
- a swept M with no row gets a new row with the best candidate.
Every other table (rs/ar) is copied unchanged. The tables are written to `<out>/tuning/`
through `codegen.runtime.tuning.write_table` (checked as the runtime reads them); each one's
command names this merge and the rows it changed.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_decode import pick_best  # noqa: E402
from codegen.runtime.tuning import write_table  # noqa: E402


def scores_of(sweeps: list[dict]) -> dict:
    """{(K, M): {(schedule, bn, cta_group): (score, us, torch_mm_us of the first sweep)}} over
    the (K, M) every sweep has; a candidate must have a ratio in every sweep."""
    runs = [{(r["K"], r["M"]): r for r in s["rows"]} for s in sweeps]
    out = {}
    for key in set.intersection(*(set(r) for r in runs)):
        per = {}
        for run in runs:
            r = run[key]
            _, ratios = pick_best(r["fused"], r["torch_mm_us"], r.get("torch_mm_cold_us"))
            for label, ratio in ratios.items():
                choice = tuple(r["fused"][label]["choice"])
                per.setdefault(choice, []).append((ratio, r["fused"][label]["us"],
                                                   r["torch_mm_us"]))
        out[key] = {c: (min(v[0] for v in vals), vals[0][1], vals[0][2])
                    for c, vals in per.items() if len(vals) == len(runs)}
    return out


def merge_rows(K: int, rows: list[dict], scores: dict, margin: float) -> tuple[list[dict], list[str]]:
    """The rows of one table (K) after the merge, and one line per change."""
    by_m = {r["M"]: r for r in rows}
    changed = []
    for (k, M), cand in sorted(scores.items()):
        if k != K or not cand:
            continue
        best = max(cand, key=lambda c: cand[c][0])
        score, us, t_mm = cand[best]
        new = {"M": M, "schedule": best[0], "bn": best[1], "cta_group": best[2],
               "fused_us": us, "best_unfused_us": t_mm, "best_unfused": "torch_mm"}
        cur = by_m.get(M)
        if cur is None:
            by_m[M] = new
            changed.append(f"M={M}: new row {best} {score:.3f}")
            continue
        now = (cur["schedule"], cur["bn"], cur["cta_group"])
        if now not in cand or score > margin * cand[now][0]:
            by_m[M] = new
            changed.append(f"M={M}: {now} {cand[now][0] if now in cand else 0:.3f} -> {best} "
                           f"{score:.3f}")
    return [by_m[m] for m in sorted(by_m)], changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="cache root holding tuning/")
    ap.add_argument("--sweep", type=Path, action="append", required=True)
    ap.add_argument("--out", type=Path, required=True, help="root to write tuning/ under")
    ap.add_argument("--margin", type=float, default=1.02)
    args = ap.parse_args(argv)
    src = args.base / "tuning"
    if not src.is_dir():
        ap.error(f"{src} is not a directory (--base must hold tuning/)")
    scores = scores_of([json.loads(p.read_text()) for p in args.sweep])
    dst = args.out / "tuning"
    dst.mkdir(parents=True, exist_ok=True)
    for f in sorted(src.glob("*.json")):
        doc = json.loads(f.read_text())
        if doc.get("mode") != "none":
            if f.resolve() != (dst / f.name).resolve():
                shutil.copy(f, dst / f.name)
            continue
        rows, changed = merge_rows(doc["K"], doc["rows"], scores, args.margin)
        print(f"K={doc['K']}: " + ("; ".join(changed) if changed else "no change"))
        sweeps = ", ".join(str(p) for p in args.sweep)
        cmd = (f"tools/merge_tuning.py (sweeps {sweeps}; {'; '.join(changed) or 'no change'}) "
               f"over: {doc['command']}")
        write_table(dst / f.name, arch=doc["arch"], mode="none", tp=doc["tp"], N=doc["N"],
                    K=doc["K"], rows=rows, device=doc["device"], command=cmd)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
