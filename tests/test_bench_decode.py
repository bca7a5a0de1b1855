"""tools/bench_decode.py's pieces that run without a GPU: timing in each regime (with the
--after-elementwise prelude) and the choice of the best candidate."""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import bench_decode  # noqa: E402


def test_time_regimes_runs_each_regime_with_its_weight_and_the_prelude(monkeypatch):
    calls = []

    def fake_graph_time(fn, iters, replays):
        for _ in range(iters):
            fn()
        return {"warm": 1.0, "cold": 2.0}[calls[-1][1]]
    monkeypatch.setattr(bench_decode, "graph_time_us", fake_graph_time)
    x = SimpleNamespace(mul_=lambda v: calls.append(("prelude", None)))   # stands for x
    t = bench_decode.time_regimes(lambda src: calls.append(("call", src)), ["warm", "cold"],
                                  {"warm": "warm", "cold": "cold"}, 3, 5, x)
    assert t == {"warm": 1.0, "cold": 2.0}
    assert calls == [("prelude", None), ("call", "warm")] * 3 + [("prelude", None), ("call", "cold")] * 3
    calls.clear()
    bench_decode.time_regimes(lambda src: calls.append(("call", src)), ["warm"], {"warm": "warm"}, 2, 5)
    assert calls == [("call", "warm")] * 2                          # no prelude by default


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
