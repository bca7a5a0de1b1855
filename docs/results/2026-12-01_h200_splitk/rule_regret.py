#!/usr/bin/env python3
"""Offline check of a mode-none dispatch rule against every sweep that timed all candidates
(one H200): for each point, the rule's choice's score (torch.mm / ours, the worse of warm and
cold) against the best candidate's. A rule is judged only where its choice was timed.

Sources: bench_decode.py sweeps (fourth session, call 1: N 2048..8192; call 7: N 7168),
choice_ab.py `cands` runs (fourth session call 6: N 7168; this session calls 5 and 7: every
candidate), and this session's calls 3, 4 and 8 (a few rules each: a point counts where the
rule's choice was among them; "best" there is the best of those few). Call 1 is left out (its
clusters of 4 ran before the grid was capped at the resident clusters).

    python3 docs/results/2026-12-01_h200_splitk/rule_regret.py [--penalty G3,G4]
"""
import argparse
import glob
import gzip
import json
import re
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
from codegen.runtime import dispatch  # noqa: E402

SLOTS = {2: 66, 4: 30}
LABEL = re.compile(r"^(tile|swapab|splitk)(\d+)(?:c(\d))?$")


def _open(path):
    return json.load(gzip.open(path) if str(path).endswith(".gz") else open(path))


def points():
    """[(N, K, M, {choice: score})]"""
    out = []
    shapes = ROOT / "docs/results/2026-12-01_h200_shapes"
    for f in sorted(glob.glob(str(shapes / "call1/r/s_*.json"))
                    + glob.glob(str(shapes / "call7/r/sweep_*.json.gz"))):
        doc = _open(f)
        for r in doc["rows"] if isinstance(doc, dict) else doc:
            mm, mmc = r.get("torch_mm_us"), r.get("torch_mm_cold_us")
            scores = {}
            for label, v in r["fused"].items():
                if label == "dispatch" or "us" not in v or "choice" not in v:
                    continue
                s = mm / v["us"]
                if mmc and v.get("us_cold"):
                    s = min(s, mmc / v["us_cold"])
                scores[tuple(v["choice"])] = s
            if scores:
                out.append((r["N"], r["K"], r["M"], scores))
    for f in sorted(glob.glob(str(shapes / "call6/r/c7168.json"))
                    + glob.glob(str(HERE / "call3/r/s_*.json.gz"))
                    + glob.glob(str(HERE / "call4/r/v_*.json.gz"))
                    + glob.glob(str(HERE / "call5/r/c_*.json.gz"))
                    + glob.glob(str(HERE / "call7/r/g_*.json.gz"))
                    + glob.glob(str(HERE / "call8/r/p_*.json.gz"))):
        for r in _open(f):
            scores = {}
            for label, s in r["vs_torch"].items():
                m = LABEL.match(label)
                if m:
                    scores[(m.group(1), int(m.group(2)), int(m.group(3) or 1))] = s
            if scores:
                out.append((r["N"], r["K"], r["M"], scores))
    return out


def staged_rule(g3: float, g4: float):
    """The committed rule with the wide / cta_group 1 decode kernels' cost per row scaled by
    g3 (3 pipeline stages) or g4 (4 stages), as the kernels of this session had them: W rows +
    token tile of 336+ had 3, of 320 had 4 (the sixth session gave them a stage more, and the
    prices became prices of those rows: dispatch.FILL_PRICE_DECODE)."""

    def cost(o, M, N):
        c = dispatch.fill_cost(o, M, N, 132, priced=False)
        if o[0] == "swapab":
            rows = (128 if o[2] == 2 else 64) + o[1]
            c *= g3 if rows >= 336 else g4 if rows >= 320 else 1.0
        return c

    def rule(M, N, K):
        if K is not None:
            split = dispatch.choose_splitk(M, N, K, "sm_90a", 132, SLOTS)
            if split is not None:
                return split
        opts = dispatch.fill_options(M, N, "sm_90a")
        return min(opts, key=lambda o: cost(o, M, N))
    return rule


def _pairs(text):
    return [tuple(float(v) for v in p.split(",")) for p in text.split(";") if p]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", action="store_true", help="every point a rule is 10% off the best")
    ap.add_argument("--penalty", type=_pairs, default=[],
                    help="g3,g4;g3,g4;...: rules with a shallow-pipeline price (staged_rule)")
    a = ap.parse_args(argv)
    pts = [p for p in points() if p[2] <= 512]
    rules = [("before this session (no splitk, no prices)", lambda M, N, K:
              dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, priced=False)),
             ("committed", lambda M, N, K: dispatch.choose_none_by_fill(
                 M, N, "sm_90a", 132, 512, K=K, cluster_slots=SLOTS))]
    for g3, g4 in a.penalty:
        rules.append((f"stages g3={g3} g4={g4}", staged_rule(g3, g4)))
    # judged where every rule's choice was timed, so the rules are compared on the same points
    picks = [[rule(M, N, K) for _, rule in rules] for N, K, M, _ in pts]
    common = [(p, c) for p, c in zip(pts, picks) if all(x in p[3] for x in c)]
    print(f"{len(common)} of {len(pts)} points (M <= 512) where every rule's choice was timed")
    for i, (name, _) in enumerate(rules):
        regrets, vs_mm = [], []
        for (N, K, M, scores), c in common:
            best = max(scores.values())
            regrets.append(scores[c[i]] / best)
            vs_mm.append(scores[c[i]])
            if a.show and scores[c[i]] / best < 0.9:
                bc = max(scores, key=scores.get)
                print(f"  N={N} K={K} M={M}: {c[i]} {scores[c[i]]:.2f} vs best {bc} {best:.2f}")
        print(f"{name}: rule / best: mean {statistics.mean(regrets):.3f}, min {min(regrets):.2f}, "
              f"below 0.9 at {sum(r < 0.9 for r in regrets)}; torch.mm / ours median "
              f"{statistics.median(vs_mm):.2f}, min {min(vs_mm):.2f}, below 0.9 at "
              f"{sum(v < 0.9 for v in vs_mm)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
