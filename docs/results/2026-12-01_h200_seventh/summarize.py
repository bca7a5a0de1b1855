#!/usr/bin/env python3
"""The seventh session's numbers from the calls' JSON (BENCHMARKS.md, "One H200, 2026-12-01
(seventh session)"): call 1's survey of mode none as dispatched (points below 0.9x torch.mm),
call 2's splitk candidates at the small-N shapes, call 3's held-out A/B of the spread clause,
call 4's candidates at the points left, calls 5 and 6: the wave-fill rule's tie-break, call 7:
before / after at call 1's points, call 8: rs/ar's rule at small N on virtual ranks.
Ratios are torch.mm / path, the worse of warm and cold weights."""
import glob
import json
import math
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(pattern):
    out = []
    for f in sorted(glob.glob(str(HERE / pattern))):
        out += json.loads(Path(f).read_text())
    return out


def geomean(xs):
    return math.exp(statistics.mean(math.log(x) for x in xs))


def short(name):
    return (name or "?").replace("gemm_none_sm90a_", "").replace("_bf16", "")


def held_out(pattern, title, old_rule):
    """A / B of the rule `fillk` against `old_rule` at each point of the calls' JSON."""
    ratios = []
    print(title)
    for r in sorted(rows(pattern), key=lambda r: (r["N"], r["K"])):
        v, ru = r["vs_torch"], r["rules"]
        new, old = v[ru["fillk"]], v[ru[old_rule]]
        ratios.append(new / old)
        print(f"  N {r['N']} K {r['K']} M {r['M']}: {ru['fillk']} {new:.2f} vs "
              f"{ru[old_rule]} {old:.2f}: {new / old:.2f}x")
    print(f"  {min(ratios):.2f}x-{max(ratios):.2f}x, geomean {geomean(ratios):.2f}x")


def main():
    survey = rows("call1/r/s_*.json")
    q = [r["vs_torch"]["dispatch"] for r in survey]
    print(f"call 1: {len(q)} points, geomean {geomean(q):.3f}, median {statistics.median(q):.3f}, "
          f"{sum(x < 0.9 for x in q)} below 0.90x")
    for r in sorted(survey, key=lambda r: (r["N"], r["K"], r["M"])):
        if r["vs_torch"]["dispatch"] < 0.9:
            print(f"  N {r['N']} K {r['K']} M {r['M']}: {r['vs_torch']['dispatch']:.2f} "
                  f"({short(r['variants'].get('dispatch'))})")
    print("call 2: dispatch (no splitk past M 192) / splitk128c2 (spread) / best")
    for r in sorted(rows("call2/r/k_*.json"), key=lambda r: (r["N"], r["K"], r["M"])):
        v = r["vs_torch"]
        best = max((k for k in v if k != "torch.mm"), key=v.get)
        pairs = (r["N"] // 64) * -(-r["M"] // 128)
        print(f"  N {r['N']} K {r['K']} M {r['M']} ({pairs} pairs): {v['dispatch']:.2f} "
              f"({short(r['variants'].get('dispatch'))}) / {v.get('splitk128c2', float('nan')):.2f}"
              f" / {best} {v[best]:.2f}")
    held_out("call3/r/h_*.json", "call 3 (held out): new rule / old rule", "fillk-nospread")
    print("call 4: every candidate (the best 5) at the points the spread clause does not reach")
    for r in sorted(rows("call4/r/c_*.json"), key=lambda r: (r["N"], r["K"], r["M"])):
        v = r["vs_torch"]
        top = sorted((k for k in v if k != "torch.mm"), key=v.get, reverse=True)[:5]
        print(f"  N {r['N']} K {r['K']} M {r['M']}: dispatch {v['dispatch']:.2f} "
              f"({short(r['variants'].get('dispatch'))}); " + " ".join(f"{k} {v[k]:.2f}" for k in top))
    held_out("call5/r/b_*.json", "call 5: the first tie-break (held out): busiest / first of "
             "the tied options", "fillk-first")
    held_out("call6/r/b_*.json", "call 6: the tie-break as committed (held out)", "fillk-first")
    after = {(r["N"], r["K"], r["M"]): r for r in rows("call7/r/s_*.json")}
    q = [r["vs_torch"]["dispatch"] for r in after.values()]
    print(f"call 7 (call 1's points, the final rule): {len(q)} points, geomean {geomean(q):.3f}, "
          f"median {statistics.median(q):.3f}, {sum(x < 0.9 for x in q)} below 0.90x")
    same = []
    for r in survey:
        key = (r["N"], r["K"], r["M"])
        if key not in after:
            continue
        a, b = r, after[key]
        va, vb = short(a["variants"].get("dispatch")), short(b["variants"].get("dispatch"))
        ra, rb = a["vs_torch"]["dispatch"], b["vs_torch"]["dispatch"]
        if va != vb:
            print(f"  N {key[0]} K {key[1]} M {key[2]}: {va} {ra:.2f} -> {vb} {rb:.2f} ({rb / ra:.2f}x)")
        else:
            same.append(rb / ra)
    print(f"  the same pick in both calls: after / before {min(same):.2f}x-{max(same):.2f}x, "
          f"geomean {geomean(same):.3f} (the calls' noise)")
    fused = rows("call8/r/fused_ab.json")
    ratios = [r["us"]["swapab128c1"] / r["us"]["default"] for r in fused]
    print("call 8 (rs/ar, two virtual ranks): old default -> the rule, us")
    for r in fused:
        print(f"  {r['mode']} N {r['N']} K {r['K']} M {r['M']}: {r['us']['swapab128c1']:.1f} -> "
              f"{r['us']['default']:.1f} ({r['ran']['default']['variant']})")
    print(f"  {min(ratios):.3f}x-{max(ratios):.2f}x, geomean {geomean(ratios):.2f}x")


if __name__ == "__main__":
    main()
