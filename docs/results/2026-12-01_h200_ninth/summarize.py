#!/usr/bin/env python3
"""Print this session's tables from the JSON the device calls wrote (call*/r/)."""
import glob
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(pattern):
    out = []
    for f in sorted(glob.glob(os.path.join(HERE, pattern))):
        out += json.load(open(f))
    return out


def vs(r, name):
    return r["vs_torch"].get(r["rules"].get(name, name))


def choice_table(title, pattern, a, b):
    print(f"\n{title}\n| N | K | M | torch.mm warm us | {a} | {b} | {b} / {a} |\n|---|---|---|---|---|---|---|")
    ratios = []
    for r in rows(pattern):
        x, y = vs(r, a), vs(r, b)
        ratios.append(y / x)
        print(f"| {r['N']} | {r['K']} | {r['M']} | {r['us']['torch.mm/warm']:.1f} | "
              f"{x:.2f} ({r['rules'][a]}) | {y:.2f} ({r['rules'][b]}) | {y / x:.2f} |")
    g = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"({len(ratios)} points; {b} / {a}: {min(ratios):.2f}..{max(ratios):.2f}, geomean {g:.2f}; "
          f"ratios are torch.mm / path, the worse of warm and cold)")


def budget_table(title, pattern):
    print(f"\n{title}\n| N | K | M | token tile | units | path (grid): us |\n|---|---|---|---|---|---|")
    for r in rows(pattern):
        cells = ", ".join(f"{k} ({r['grids'].get(k, '-')}): {v:.1f}" for k, v in r["us"].items())
        print(f"| {r['N']} | {r['K']} | {r['M']} | {r['token_tile']} | {r['units']} | {cells} |")


choice_table("Call 1: stream-K against the dispatch (mode none)", "call1/r/c_*.json",
             "dispatch", "streamk")
budget_table("Call 2: stream-K on grids of whole tiles vs split tiles", "call2/r/b_*.json")
for side in ("cache_gpu", "cache_dx_nofence", "cache_dx_nofix"):
    budget_table(f"Call 3: {side}", f"call3/r/b_{side}.json")
choice_table("Call 4a: stream-K at few W tiles, long K", "call4/r/s_*.json", "dispatch", "streamk")
choice_table("Call 4b: splitk clusters of 2 below K 2048 (fit)", "call4/r/k_*.json", "dispatch",
             "splitk-c2")
choice_table("Call 5: the new splitk bound, held out (new dispatch vs the old pick)",
             "call5/r/h_*.json", "rules", "dispatch")
