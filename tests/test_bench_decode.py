"""tools/bench_decode.py's pieces that run without a GPU: timing in each regime (with the
--after-elementwise prelude) and the choice of the best candidate."""
from __future__ import annotations

import random
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import bench_decode  # noqa: E402
import graph_timing  # noqa: E402


def test_time_paths_runs_each_regime_with_its_weight_and_the_prelude(monkeypatch):
    calls = []

    def fake_graph_time(fn, iters, replays):
        for _ in range(iters):
            fn()
        label, src = calls[-1][1]
        return {"warm": 1.0, "cold": 2.0}[src] + (10.0 if label == "b" else 0.0)
    monkeypatch.setattr(bench_decode, "interleaved_medians",
                        lambda c, i, r, n, rng: graph_timing.interleaved_medians(
                            c, i, r, n, rng, timer=fake_graph_time))
    x = SimpleNamespace(mul_=lambda v: calls.append(("prelude", None)))   # stands for x
    fns = {lab: (lambda lab: (lambda src: calls.append(("call", (lab, src)))))(lab)
           for lab in ("a", "b")}
    t = bench_decode.time_paths(fns, ["warm", "cold"], {"warm": "warm", "cold": "cold"}, 3, 5,
                                2, random.Random(0), x)
    assert t == {"a": {"warm": 1.0, "cold": 2.0}, "b": {"warm": 11.0, "cold": 12.0}}
    # every (path, regime) timed once per round, each call after the prelude
    assert calls.count(("prelude", None)) == 2 * 4 * 3
    assert sorted(c for c in calls if c[0] == "call") == sorted(
        [("call", (lab, reg)) for lab in "ab" for reg in ("warm", "cold")] * 6)
    calls.clear()
    bench_decode.time_paths({"a": fns["a"]}, ["warm"], {"warm": "warm"}, 2, 5, 1,
                            random.Random(0))
    assert calls == [("call", ("a", "warm"))] * 2                  # no prelude by default


def test_pick_best_by_the_worse_regime_and_never_a_failed_candidate():
    fused = {"dispatch": {"us": 1.0, "us_cold": 1.0},               # never a candidate
             "tile224": {"us": 10.0, "us_cold": 20.0},             # fast warm, slow cold
             "swapab64c2": {"us": 11.0, "us_cold": 11.5},
             "tile128": {"error": "wrong result: relerr 1.00e+00"}}
    best, ratios = bench_decode.pick_best(fused, t_mm=10.0, t_mm_cold=12.0)
    assert best == "swapab64c2" and set(ratios) == {"tile224", "swapab64c2"}
    assert ratios["tile224"] == pytest.approx(0.6) and ratios["swapab64c2"] == pytest.approx(10 / 11)
    best, ratios = bench_decode.pick_best(fused, t_mm=10.0, t_mm_cold=None)   # warm only
    assert best == "tile224" and ratios["tile224"] == 1.0
    assert bench_decode.pick_best({"dispatch": {"us": 1.0}, "x": {"error": "e"}}, 1.0, None) == (None, {})


def test_dispatch_only_times_the_dispatch_alone_and_refuses_tune_out():
    full = bench_decode.paths_to_time(64, 7168, False)
    assert full[0] == (None, None, None) and len(full) > 1
    assert ("tile", 128, 1) in full and any(p[0] == "swapab" for p in full)
    assert bench_decode.paths_to_time(64, 7168, True) == [(None, None, None)]
    with pytest.raises(SystemExit):
        bench_decode.main(["--dispatch-only", "--tune-out", "/tmp/x"])
