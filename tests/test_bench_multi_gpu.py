"""tools/bench_multi_gpu.py and its helpers, as far as a CPU can run them: argument parsing, the
best baseline, fitting the symm-mem schema, rows, tuning tables, and one (mode, K, M) measured
end to end against a single-rank fake of torch.distributed and a fake fused op (no GPU)."""
from __future__ import annotations

import itertools
import math
import random
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import baselines  # noqa: E402
import bench_multi_gpu as bench  # noqa: E402
import bench_report as report  # noqa: E402
import link_bound  # noqa: E402

from codegen.runtime.errors import CacheMissError, InputError  # noqa: E402
from codegen.runtime.tuning import find_table  # noqa: E402
from codegen.spec import Variant  # noqa: E402


# ---- arguments ---------------------------------------------------------------------------------
def test_defaults():
    a = bench.parse_args([])
    assert a.ms == [16, 32, 64, 128, 256, 512, 2048, 8192] and a.ks == [768, 1536, 2304]
    assert (a.n, a.modes, a.schedule, a.bn, a.cta_group) == (7168, "rs,ar", None, None, None)
    assert a.tune_out is None and a.baselines is None and not a.allow_multicast
    assert (a.link_mib, a.link_copy) == (512, "sm") and not a.no_ours_gemm


def test_options():
    a = bench.parse_args(["--ms", "16,32", "--ks", "768", "--modes", "ar", "--schedule", "swapab",
                          "--tune-out", "generated", "--baselines", "nccl,symm_two_shot",
                          "--link-mib", "256", "--link-copy", "memcpy", "--no-ours-gemm"])
    assert (a.ms, a.ks, a.modes, a.schedule) == ([16, 32], [768], "ar", "swapab")
    assert a.tune_out == Path("generated") and a.baselines == ["nccl", "symm_two_shot"]
    assert (a.link_mib, a.link_copy) == (256, "memcpy") and a.no_ours_gemm
    for bad in (["--schedule", "fast"], ["--baselines", "nccl,gloo"], ["--link-copy", "ce"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)


# ---- baselines ---------------------------------------------------------------------------------
@pytest.mark.parametrize("times,expected", [
    ({"nccl": 19.0, "symm_two_shot": 15.0, "symm_one_shot": None}, ("symm_two_shot", 15.0)),
    ({"nccl": 19.0, "symm_rs": math.inf}, ("nccl", 19.0)),
    ({"nccl": math.nan, "symm_rs": 12.0}, ("symm_rs", 12.0)),
    ({"nccl": None}, (None, None)),
    ({}, (None, None)),
])
def test_best_baseline(times, expected):
    assert baselines.best_baseline(times) == expected


def test_fit_schema_to_the_real_reduce_scatter_out():
    schema = torch.ops.symm_mem.reduce_scatter_out.default._schema
    vals = {"input": "IN", "group_name": "0", "split_last_dim": False, "output": "OUT",
            "reduce_op": "sum"}
    assert baselines.fit_schema(schema, vals) == (["IN", "0", False, "OUT"], {})


def _arg(name, default=None, kwarg_only=False):
    return SimpleNamespace(name=name, type="T", kwarg_only=kwarg_only,
                           has_default_value=lambda: default is not None)


def test_fit_schema_defaults_and_keywords():
    schema = SimpleNamespace(name="op", arguments=[_arg("input"), _arg("reduce_op", "sum"),
                                                   _arg("group_name"), _arg("tag", 1, True)])
    assert baselines.fit_schema(schema, {"input": 1, "group_name": "g", "tag": 2}) == \
        ([1], {"group_name": "g", "tag": 2})
    with pytest.raises(ValueError, match="needs argument 'group_name'"):
        baselines.fit_schema(schema, {"input": 1})


# ---- rows, tables ------------------------------------------------------------------------------
def _row(M, base, fused, cands=(), mode="ar", K=768, link_gbps=None, ours=None):
    row = {"tp": 2, "mode": mode, "K": K, "M": M, "N": 7168, "gemm_us": 5.0, "link_gbps": link_gbps,
           "baselines": base, "baseline_errors": {}, "fused_us": fused, "variant": "v",
           "ours_gemm_us": ours}
    if cands:
        row["candidates"] = [dict(c) for c in cands]
    return report.summarize(row)


CANDS = [{"schedule": "tile", "bn": 128, "cta_group": 1, "us": 20.0},
         {"schedule": "tile", "bn": 256, "cta_group": 2, "skipped": "CacheMissError: ..."},
         {"schedule": "swapab", "bn": 16, "cta_group": 1, "us": 9.0}]


def test_summarize_picks_best_baseline_and_candidate():
    r = _row(16, {"nccl": 19.0, "symm_two_shot": 15.0, "symm_one_shot": None}, 30.0, CANDS)
    assert (r["best_unfused"], r["best_unfused_us"], r["speedup"]) == ("symm_two_shot", 15.0, 0.5)
    assert r["tuned"] == {"schedule": "swapab", "bn": 16, "cta_group": 1, "us": 9.0}
    assert r["tuned_speedup"] == pytest.approx(15.0 / 9.0)
    r = _row(16, {"nccl": None}, None, [{**CANDS[0], "us": math.inf}])
    assert r["best_unfused"] is None and r["speedup"] is None and r["tuned"] is None


def test_tuning_rows_and_tables(tmp_path):
    rows = [_row(16, {"nccl": 19.0}, 30.0, CANDS), _row(64, {"nccl": 25.0}, 20.0, CANDS[:1]),
            _row(128, {"nccl": None}, 20.0, CANDS),                 # no baseline: left out
            _row(16, {"nccl": 19.0}, 30.0, CANDS, mode="rs"), _row(16, {"nccl": 9.0}, 10.0)]
    assert report.tuning_rows(rows, "ar", 768) == [
        {"M": 16, "schedule": "swapab", "bn": 16, "cta_group": 1, "fused_us": 9.0,
         "best_unfused_us": 19.0, "best_unfused": "nccl"},
        {"M": 64, "schedule": "tile", "bn": 128, "cta_group": 1, "fused_us": 20.0,
         "best_unfused_us": 25.0, "best_unfused": "nccl"}]
    written = bench.write_tables(tmp_path, rows, arch="sm_90a", tp=2, N=7168, device="H200",
                                 command="torchrun x")
    assert [p.name for p in written] == ["sm_90a_ar_tp2_n7168_k768.json", "sm_90a_rs_tp2_n7168_k768.json"]
    t = find_table(tmp_path, "sm_90a", "ar", 2, 7168, 768)
    assert t.ms == (16, 64) and t.crossover_m == 16 and t.choice(1) == ("swapab", 16, 1)
    assert t.command == "torchrun x" and t.device == "H200"
    cross = report.crossovers(rows, 2)
    assert cross[0] == {"tp": 2, "mode": "ar", "K": 768, "crossover_M": 64, "tuned_crossover_M": 16}


def test_text_and_markdown():
    rows = [_row(16, {"nccl": 19.0, "symm_two_shot": 15.0}, 30.0, CANDS),
            {**_row(32, {"nccl": 19.0}, None), "error": "rank 0: CacheMissError: x | rank 1: y"}]
    assert "mode" in report.text_line() and "swapab bn16 cg1" in report.text_line(rows[0])
    md = report.markdown_table(rows, report.crossovers(rows, 2),
                               {"tp": 2, "device": "H200", "torch": "2.x", "iters": 10, "replays": 50})
    assert "nccl=19.0 symm_two_shot=15.0" in md and "15.0 (symm_two_shot)" in md and "0.50x" in md
    assert "error: rank 0: CacheMissError: x / rank 1: y" in md
    assert "T_link, T_phys and eff not measured (no probe result)" in md


LINK = {"bytes": 512 << 20, "peer": "rank r reads rank (r + 1) % tp", "copy": "sm", "gbps": 400.0,
        "sm_us": 1342.2, "sm_gbps": 400.0, "memcpy_us": 1300.0, "memcpy_gbps": 413.0}


def test_bound_columns():
    # AR TP2 M=1024: 1024*7168*2 bytes at 400 GB/s = 36.7 us > torch.mm's 5.0; fused 40.0;
    # our GEMM alone 10.0: gemm_eff 0.50, exposed 40.0 - 36.7 = 3.3, overlap 1 - 3.3 / 10
    r = _row(1024, {"nccl": 60.0}, 40.0, CANDS, link_gbps=400.0, ours=10.0)
    assert r["link_bytes"] == 1024 * 7168 * 2 and r["link_us"] == pytest.approx(36.7, abs=0.01)
    assert r["phys_us"] == r["link_us"] and r["phys_eff"] == pytest.approx(r["link_us"] / 40.0)
    assert r["tuned_phys_eff"] == pytest.approx(r["link_us"] / 9.0)
    assert r["gemm_eff"] == 0.5 and r["exposed_us"] == pytest.approx(40.0 - r["link_us"])
    assert r["overlap"] == pytest.approx(1 - (40.0 - r["link_us"]) / 10.0)
    rs = _row(1024, {"nccl": 60.0}, 40.0, mode="rs", link_gbps=400.0)
    assert rs["link_us"] == pytest.approx(36.7 / 2, abs=0.01)
    gemm_bound = _row(16, {"nccl": 19.0}, 10.0, link_gbps=400.0)  # 0.6 us over NVLink
    assert gemm_bound["phys_us"] == 5.0 and gemm_bound["phys_eff"] == 0.5
    head = report.text_line()
    assert head.split()[:16] == ["mode", "K", "M", "torch.mm", "best", "unfused", "fused", "vs",
                                 "best", "T_link", "T_phys", "eff", "ours", "gemm_eff", "exposed",
                                 "tuned"]
    line = report.text_line(r).split()
    assert line[8:14] == ["36.7", "36.7", "0.92", "10.0", "0.50", "3.3"]
    md = report.markdown_table([r, gemm_bound, _row(32, {"nccl": 19.0}, None, link_gbps=400.0)], [],
                               {"tp": 2, "device": "H200", "torch": "2.x", "iters": 10,
                                "replays": 50, "link": LINK})
    assert ("| mode | K | M | torch.mm (T_gemm) | unfused (us) | best unfused | fused | vs best | "
            "T_link | T_phys | eff = T_phys/fused | ours GEMM (us) | gemm_eff | exposed (us) | "
            "tuned (config) | vs best | variant |") in md
    assert "| 40.0 | 1.50x | 36.7 | 36.7 | 0.92 | 10.0 | 0.50 | 3.3 | 9.0 swapab bn16 cg1 | 6.67x |" in md
    assert "| 10.0 | 1.90x | 0.6 | 5.0 | 0.50 | - | - | - | - | - |" in md  # no ours GEMM
    assert "| - | - | 1.1 | 5.0 | - | - | - | - | - | - |" in md     # no fused time: no eff
    assert "400 GB/s per GPU (sm copy of 512 MiB" in md and "memcpy 413 GB/s" in md
    assert "gemm_eff = T_gemm / ours GEMM" in md and "exposed = fused - max(ours GEMM, T_link)" in md


# ---- one (mode, K, M) end to end on fakes ---------------------------------------------------------
class FakeDist:
    """torch.distributed for one rank on the CPU."""
    ReduceOp = SimpleNamespace(MAX="max")
    group = SimpleNamespace(WORLD=SimpleNamespace(group_name="0"))

    def get_rank(self):
        return 0

    def get_world_size(self):
        return 1

    def all_gather_object(self, out, obj):
        out[0] = obj

    def all_reduce(self, t, op=None):
        pass

    def reduce_scatter_tensor(self, out, inp):
        out.copy_(inp)

    def barrier(self, device_ids=None):
        pass


class FakeOp:
    """A fused op (or, in mode 'none', our plain GEMM) that is torch.mm; swapab (and, with
    `dispatch_missing`, dispatch; with `none_missing`, every mode-none variant) is not cached.
    Dispatch is the tile schedule, BN 128, CTA group 1; the SM budget defaults to the group's
    (120) or, without a group, all 132 SMs."""
    dispatch_missing = none_missing = False
    made: list = []  # every op constructed (a test resets it)

    def __init__(self, max_M, N, K, mode, group, bn=None, cta_group=None, timeout_ms=None,
                 schedule=None, sm_budget=None, device=None):
        self.N, self.mode, self.schedule, self.bn, self.cg = N, mode, schedule, bn, cta_group
        self.sm_budget = sm_budget or (120 if group is not None else 132)
        self.last_launch = {}
        FakeOp.made.append(self)

    def prepare(self, Ms):
        if self.mode == "none" and self.none_missing:
            raise CacheMissError("gemm_none_sm90a_bn128_cg1_bf16", "codegen build --tp 2")
        if self.schedule == "swapab" or (self.schedule is None and self.dispatch_missing):
            raise CacheMissError("gemm_ar_swapab", "codegen build --tp 1")
        if self.bn == 256 and self.cg == 2:
            raise InputError("bn 256 x cg 2 refused")

    def out_shape(self, M):
        return (M, self.N)

    def __call__(self, rank, x, w, out):
        torch.mm(x, w.t(), out=out)
        none = self.mode == "none"
        v = Variant("sm_90a", self.mode, None if none else "unicast", self.bn or 128, self.cg or 1,
                    None if none else 2, schedule=self.schedule or "tile")
        self.last_launch[rank] = {"variant": v.name, "schedule": v.schedule, "bn": v.bn,
                                  "cta_group": v.cta_group, "grid": self.sm_budget}
        return out

    synchronize = reset_errors = lambda self: None


@pytest.fixture
def fake_bench(monkeypatch, tmp_path):
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: None)
    monkeypatch.setattr(bench.FusedOps, "__init__", lambda self, b, K: (
        setattr(self, "b", b), setattr(self, "K", K), setattr(self, "cls", FakeOp),
        setattr(self, "ops", {}), setattr(self, "has_schedule", True)) and None)
    args = bench.parse_args(["--ms", "16", "--ks", "64", "--n", "256", "--modes", "ar",
                             "--tune-out", str(tmp_path)])
    b = bench.Bench(args, torch, FakeDist(), torch.device("cpu"))
    b.mode, b.group = "ar", SimpleNamespace(reset_state=lambda: None)
    b.unfused = baselines.Unfused(torch, b.dist, b.device, "ar", b.max_M, b.N)
    b.unfused.flat, b.unfused.symm_error = None, "symmetric buffer: no CUDA"
    clock = itertools.count(start=10)
    monkeypatch.setattr(b, "timed", lambda fn: (fn(), float(next(clock)))[1])
    b.ops, b.gemm_ops = bench.FusedOps(b, 64), bench.GemmOps(b, 64)
    FakeOp.made = []
    return b


def test_measure_with_rotating_weights(fake_bench):
    """--cold-weights: the weight is a function returning the next copy; every path (torch.mm,
    the baselines, fused, candidates) reads copies in turn and the results still check."""
    import graph_timing

    w = (torch.randn(256, 64) * 0.1).to(torch.bfloat16)
    ws = [w, w.clone(), w.clone()]
    seen = []
    nxt = graph_timing.rotating(ws)

    def w_fn():
        seen.append(nxt())
        return seen[-1]
    r = fake_bench.measure(64, 16, w_fn)
    assert "error" not in r and r["fused_relerr"] == 0.0 and r["best_unfused"] == "nccl"
    assert {id(t) for t in seen} == {id(t) for t in ws}     # every copy was read


def test_measure_on_fakes(fake_bench):
    w = (torch.randn(256, 64) * 0.1).to(torch.bfloat16)
    r = fake_bench.measure(64, 16, w)
    assert r["gemm_us"] == 10.0 and r["baselines"] == {"nccl": 11.0, "symm_two_shot": None,
                                                        "symm_one_shot": None}
    assert "no CUDA" in r["baseline_errors"]["symm_two_shot"]
    assert (r["best_unfused"], r["fused_us"], r["fused_relerr"]) == ("nccl", 12.0, 0.0)
    assert "error" not in r and "fused_note" not in r
    cands = {(c["schedule"], c["bn"], c["cta_group"]): c for c in r["candidates"]}
    assert [k for k, c in cands.items() if "us" in c] == [("tile", 128, 1), ("tile", 128, 2), ("tile", 256, 1)]
    assert "InputError: bn 256 x cg 2" in cands[("tile", 256, 2)]["skipped"]
    assert "CacheMissError" in cands[("swapab", 16, 1)]["skipped"]
    assert r["tuned"] == {"schedule": "tile", "bn": 128, "cta_group": 1, "us": 14.0}
    # our GEMM alone: mode none, the fused variant's schedule / BN / CTA group and SM budget
    assert r["ours_gemm_us"] == 13.0 and r["ours_gemm_relerr"] == 0.0
    assert r["ours_gemm_variant"] == "gemm_none_sm90a_bn128_cg1_bf16" and r["ours_gemm_grid"] == 120
    assert r["variant"] == "gemm_ar_unicast_sm90a_bn128_cg1_tp2_bf16" and r["sm_budget"] == 120
    assert list(fake_bench.gemm_ops.ops) == [("tile", 128, 1, 120)]
    assert [(o.mode, o.sm_budget) for o in FakeOp.made if o.mode == "none"] == [("none", 120)]
    assert r["gemm_eff"] == pytest.approx(10.0 / 13.0) and "ours_gemm_error" not in r
    assert r["exposed_us"] is None and r["overlap"] is None    # no link probe in this run


def test_measure_falls_back_to_tile(fake_bench, monkeypatch, capsys):
    monkeypatch.setattr(FakeOp, "dispatch_missing", True)
    fake_bench.args.tune_out = None
    r = fake_bench.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    assert "CacheMissError" in r["fused_note"] and "fell back to the tile schedule" in r["fused_note"]
    assert r["fused_us"] == 12.0 and "error" not in r
    assert r["variant"] == "gemm_ar_unicast_sm90a_bn128_cg1_tp2_bf16"
    assert "fell back to the tile schedule" in capsys.readouterr().out
    assert r["ours_gemm_us"] == 13.0 and r["ours_gemm_variant"] == "gemm_none_sm90a_bn128_cg1_bf16"


@pytest.mark.parametrize("schedule,bn,cg", [("swapab", 32, 2), ("tile", 256, 1)])
def test_ours_gemm_mirrors_a_fixed_variant(fake_bench, monkeypatch, schedule, bn, cg):
    monkeypatch.setattr(FakeOp, "prepare", lambda self, Ms: None)   # everything cached
    a = fake_bench.args
    a.tune_out, a.schedule, a.bn, a.cta_group = None, schedule, bn, cg
    r = fake_bench.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    v = Variant.parse(r["variant"])
    assert (v.schedule, v.bn, v.cta_group) == (schedule, bn, cg)
    assert r["ours_gemm_variant"] == Variant("sm_90a", "none", None, bn, cg, None,
                                             schedule=schedule).name
    assert list(fake_bench.gemm_ops.ops) == [(schedule, bn, cg, 120)]


def test_ours_gemm_missing_kernel_is_recorded_not_fatal(fake_bench, monkeypatch):
    monkeypatch.setattr(FakeOp, "none_missing", True)
    fake_bench.args.tune_out = None
    r = fake_bench.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    assert r["fused_us"] == 12.0 and "error" not in r and r["ours_gemm_us"] is None
    assert r["ours_gemm_error"].startswith("rank 0: CacheMissError: no valid cached kernel")
    assert "codegen build --tp 2" in r["ours_gemm_error"]
    assert r["gemm_eff"] is None and r["exposed_us"] is None and r["overlap"] is None
    md = report.markdown_table([r], [], {"tp": 2, "device": "H200", "torch": "2.x", "iters": 10,
                                         "replays": 50})
    assert "[ours GEMM failed]" in md
    assert "ours GEMM not measured: ar K=64 M=16: rank 0: CacheMissError" in md


def test_ours_gemm_wrong_result_and_no_fused(fake_bench, monkeypatch):
    plain = FakeOp.__call__

    def call(self, rank, x, w, out):
        plain(self, rank, x, w, out)
        return out.zero_() if self.mode == "none" else out

    monkeypatch.setattr(FakeOp, "__call__", call)
    fake_bench.args.tune_out = None
    w = (torch.randn(256, 64) * 0.1).to(torch.bfloat16)
    r = fake_bench.measure(64, 16, w)
    assert r["ours_gemm_us"] is None and "wrong result" in r["ours_gemm_error"]
    a = fake_bench.args                                            # refused, and no fallback
    a.schedule, a.bn, a.cta_group = "tile", 256, 2                 # from the tile schedule
    r = fake_bench.measure(64, 16, w)
    assert "error" in r and r["ours_gemm_us"] is None
    assert r["ours_gemm_error"] == "no fused variant to mirror (the fused op did not run)"
    md = report.markdown_table([r], [], {"tp": 2, "device": "H200", "torch": "2.x", "iters": 10,
                                         "replays": 50})
    assert "| error: rank 0: InputError: bn 256 x cg 2 refused |" in md   # said once, as before
    assert "ours GEMM failed" not in md and "ours GEMM not measured:" not in md


def test_no_ours_gemm(fake_bench):
    fake_bench.args.no_ours_gemm = True
    r = fake_bench.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    assert r["ours_gemm_us"] is None and "ours_gemm_error" not in r and not fake_bench.gemm_ops.ops
    assert r["tuned"]["us"] == 13.0                                 # nothing else was timed
    md = report.markdown_table([r], [], {"tp": 2, "device": "H200", "torch": "2.x", "iters": 10,
                                         "replays": 50, "ours_gemm": False})
    assert "ours GEMM, gemm_eff and exposed not measured (--no-ours-gemm)" in md
    assert "ours GEMM not measured:" not in md


def test_fused_ops_without_schedule_keyword(fake_bench):
    ops = fake_bench.ops
    ops.has_schedule = False
    with pytest.raises(InputError, match="no schedule= keyword"):
        ops.get(16, "swapab", 16, 1)
    assert ops.get(16, "tile", 128, 1).schedule is None  # the keyword is left out


def test_failing_symm_baseline_and_kernel_are_recorded_not_fatal(fake_bench, monkeypatch):
    b, resets = fake_bench, []
    b.mode = "rs"
    b.unfused = baselines.Unfused(torch, b.dist, b.device, "rs", b.max_M, b.N)
    b.unfused.flat = torch.zeros(b.max_M * b.N, dtype=torch.bfloat16)  # not symmetric: the op fails
    b.group = SimpleNamespace(reset_state=lambda: resets.append("group"))
    b.ops = bench.FusedOps(b, 64)

    plain = FakeOp.__call__

    def call(self, rank, x, w, out):
        if self.bn == 256:
            raise RuntimeError("kernel timed out")
        return plain(self, rank, x, w, out)

    monkeypatch.setattr(FakeOp, "__call__", call)
    r = b.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    assert r["baselines"]["nccl"] == 11.0 and r["baselines"]["symm_rs"] is None
    assert r["baseline_errors"]["symm_rs"].startswith("rank 0: ")
    assert r["best_unfused"] == "nccl" and r["fused_us"] is not None
    cands = {(c["schedule"], c["bn"], c["cta_group"]): c for c in r["candidates"]}
    assert "kernel timed out" in cands[("tile", 256, 1)]["skipped"] and resets == ["group"]
    assert r["tuned"]["bn"] == 128


def test_png(tmp_path):
    pytest.importorskip("matplotlib")
    rows = [_row(m, {"nccl": 19.0 + m / 10}, 15.0 + m / 20, CANDS, mode=mode, link_gbps=400.0)
            for mode in ("ar", "rs") for m in (16, 64, 512)]
    report.plot_png(rows, tmp_path / "b.png", {"tp": 2, "N": 7168})
    assert (tmp_path / "b.png").stat().st_size > 1000


# ---- the peer bandwidth, the bound in rows and the JSON ---------------------------------------------
class SelfSymm:
    """Symmetric memory of a one-rank world: rank 0's peer, (0 + 1) % 1, is itself."""

    def empty(self, n, dtype, device):
        self.buf = torch.empty(n, dtype=dtype, device=device)
        return self.buf

    def rendezvous(self, t, group_name):
        return SimpleNamespace(get_buffer=lambda rank, sizes, dtype: self.buf.view(dtype))


@pytest.fixture
def probe_bench(fake_bench, monkeypatch):
    monkeypatch.setattr(bench, "PeerCopy", lambda *a: link_bound.PeerCopy(*a, symm=SelfSymm()))
    fake_bench.args.link_mib = 1
    return fake_bench


def test_measure_link(probe_bench):
    link = probe_bench.measure_link()                           # the fake clock: sm 10 us, memcpy 11
    assert link == {"bytes": 1 << 20, "peer": "rank r reads rank (r + 1) % tp", "copy": "sm",
                    "sm_us": 10.0, "sm_gbps": pytest.approx((1 << 20) / 10e3),
                    "memcpy_us": 11.0, "memcpy_gbps": pytest.approx((1 << 20) / 11e3),
                    "gbps": pytest.approx((1 << 20) / 10e3)}


def test_measure_link_failures(probe_bench, monkeypatch):
    def calls(self):
        def broken():
            raise RuntimeError("no peer access")
        return {"sm": broken, "memcpy": lambda: self.dst.copy_(self.src)}

    monkeypatch.setattr(link_bound.PeerCopy, "calls", calls)
    link = probe_bench.measure_link()
    assert link["sm_us"] is None and link["gbps"] is None and link["memcpy_us"] == 10.0
    assert "no peer access" in link["errors"]["sm"] and link["error"].startswith("the sm copy failed")
    probe_bench.args.link_copy = "memcpy"
    link = probe_bench.measure_link()
    assert link["gbps"] == link["memcpy_gbps"] and "error" not in link
    probe_bench.args.link_mib = 0
    assert probe_bench.measure_link() == {"error": "not measured (--link-mib 0)"}
    monkeypatch.setattr(bench, "PeerCopy", lambda *a: link_bound.PeerCopy(*a[:3], 8))
    probe_bench.args.link_mib = 1
    assert "at least 16" in probe_bench.measure_link()["error"]


NEW_KEYS = ("link_gbps", "link_bytes", "link_us", "phys_us", "phys_eff", "tuned_phys_eff",
            "sm_budget", "ours_gemm_us", "ours_gemm_relerr", "ours_gemm_variant", "ours_gemm_grid",
            "gemm_eff", "exposed_us", "overlap")
OLD_KEYS = ("tp", "mode", "K", "M", "N", "gemm_us", "baselines", "baseline_errors", "best_unfused",
            "best_unfused_us", "fused_us", "fused_relerr", "speedup", "tuned", "tuned_speedup",
            "variant", "candidates")


def test_rows_and_json_carry_the_bound(probe_bench, tmp_path):
    import json

    b = probe_bench
    b.link = b.measure_link()                                   # sm: 10 us -> 104.9 GB/s
    b.tp = 2                                                    # rows as at TP2 (the fakes ignore it)
    r = b.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    assert r["link_gbps"] == b.link["gbps"] and r["link_bytes"] == 16 * 256 * 2
    assert r["link_us"] == pytest.approx(16 * 256 * 2 / (b.link["gbps"] * 1e3))
    assert r["phys_us"] == r["gemm_us"] == 12.0                 # torch.mm alone is the bound here
    assert r["phys_eff"] == pytest.approx(12.0 / 14.0) and r["tuned_phys_eff"] == pytest.approx(12.0 / 16.0)
    assert r["ours_gemm_us"] == 15.0 and r["gemm_eff"] == pytest.approx(12.0 / 15.0)
    assert r["exposed_us"] == pytest.approx(14.0 - 15.0)          # our GEMM alone > fused here
    assert r["overlap"] == 1.0                                    # clipped
    b.props = SimpleNamespace(name="H200", multi_processor_count=132)
    b.args.json, b.args.md, b.args.tune_out = tmp_path / "b.json", tmp_path / "b.md", None
    b.write_outputs([r], report.crossovers([r], 2))
    data = json.loads(b.args.json.read_text())
    assert data["link"] == b.link and data["link_gbps"] == b.link["gbps"] and data["ours_gemm"]
    assert all(k in data["rows"][0] for k in OLD_KEYS + NEW_KEYS)
    md = b.args.md.read_text()
    assert "| T_link | T_phys | eff = T_phys/fused |" in md and "0.86" in md and "GB/s per GPU" in md
    assert "| 0.86 | 15.0 | 0.80 | -1.0 |" in md and "ours GEMM = our kernel's plain GEMM" in md


def test_after_elementwise_precedes_every_timed_call(fake_bench, monkeypatch):
    """--after-elementwise: each timed path (torch.mm, baselines, fused, our GEMM, candidates)
    runs after x *= 1 on the row's x; the check calls do not, and nothing is left set after."""
    fake_bench.args.after_elementwise = True
    calls = []

    class CountingX:
        """Stands for the row's x in the prelude: counts the in-place multiplies."""
        def __init__(self, x):
            self.x = x

        def mul_(self, v):
            calls.append(v)
            return self.x.mul_(v)

    def timed(fn):
        fake_bench.prelude_x = CountingX(fake_bench.prelude_x) if not isinstance(
            fake_bench.prelude_x, CountingX) else fake_bench.prelude_x
        before = len(calls)
        fake_bench.with_prelude(fn)()
        assert len(calls) == before + 1        # one elementwise kernel per timed call
        return 10.0
    monkeypatch.setattr(fake_bench, "timed", timed)
    r = fake_bench.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    assert "error" not in r and r["fused_relerr"] == 0.0 and calls and set(calls) == {1.0}
    assert fake_bench.prelude_x is None
    fake_bench.args.after_elementwise = False
    fn = lambda: 7  # noqa: E731
    assert fake_bench.with_prelude(fn) is fn
    assert bench.parse_args(["--after-elementwise"]).after_elementwise
    assert not bench.parse_args([]).after_elementwise


def test_time_paths_rounds_in_shared_random_orders(fake_bench, monkeypatch):
    """--rounds R: every path timed R times, round 1 in the given order and each later round in
    a fresh order drawn from --seed (the same draws on every rank), medians; a path that fails
    in any round is dropped from the later ones with the reason."""
    b, log = fake_bench, []
    times = {"a": [5.0, 7.0, 6.0], "b": [9.0, 1.0, 2.0], "c": [3.0, 3.0, 3.0], "d": [1.0]}

    def path(name, fail_on=None):
        def call():
            n = sum(1 for x in log if x == name)
            log.append(name)
            if fail_on is not None and n == fail_on:
                raise RuntimeError(f"{name} failed in round {n + 1}")
            return times[name][n]
        return call
    monkeypatch.setattr(b, "timed", lambda fn: fn())
    none = lambda: None  # noqa: E731
    paths = {"a": (path("a"), none), "b": (path("b"), none), "c": (path("c"), none),
             "d": (path("d", fail_on=1), none)}
    b.args.rounds, b.rng = 3, random.Random(5)
    got = b.time_paths(paths)
    assert log[:4] == ["a", "b", "c", "d"]                      # round 1: as given
    assert got["a"] == (6.0, None) and got["b"] == (2.0, None) and got["c"] == (3.0, None)
    assert got["d"][0] is None and "d failed in round 2" in got["d"][1]
    assert sorted(log) == sorted(["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 2)
    first = list(log)
    log.clear()
    b.rng = random.Random(5)
    b.time_paths(paths)
    assert log == first                                         # same seed, same orders
    # rounds 2 and 3 drew their own orders (d, failed in round 2, is not in round 3)
    assert sorted(log[4:8]) == ["a", "b", "c", "d"] and sorted(log[8:]) == ["a", "b", "c"]
    assert log[4:8] != ["a", "b", "c", "d"] or log[8:] != ["a", "b", "c"]


def test_measure_with_rounds(fake_bench, monkeypatch):
    """A whole row with --rounds 3: the same paths, each timed three times (the clock's values
    then differ from the one-round run, but every time is a median of three of them)."""
    fake_bench.args.rounds = 3
    calls = []
    clock = itertools.count(start=10)
    monkeypatch.setattr(fake_bench, "timed", lambda fn: (fn(), calls.append(1),
                                                         float(next(clock)))[2])
    r = fake_bench.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    one = 1 + 1 + 1 + 1 + 3   # torch.mm, nccl, fused, ours, the three candidates that run
    assert len(calls) == 3 * one
    assert "error" not in r and r["fused_relerr"] == 0.0 and r["best_unfused"] == "nccl"
    timed = [r["gemm_us"], r["baselines"]["nccl"], r["fused_us"], r["ours_gemm_us"]]
    assert all(10.0 <= t < 10 + 3 * one for t in timed) and len(set(timed)) == 4


def test_a_path_failing_while_timed_is_recorded_and_reset(fake_bench, monkeypatch):
    """The fused op checks out but fails while timed (e.g. a kernel time-out in graph replay):
    the row records the error, the op's error record and the group's state are reset, and the
    other paths keep their times."""
    b, resets, n = fake_bench, [], itertools.count(1)
    b.args.tune_out = None
    b.group = SimpleNamespace(reset_state=lambda: resets.append("group"))

    def timed(fn):
        fn()
        i = next(n)
        if i == 3:                       # torch.mm, nccl, then fused
            raise RuntimeError("KernelTimeoutError: rank 0 waited for its peer")
        return float(10 + i)
    monkeypatch.setattr(b, "timed", timed)
    r = b.measure(64, 16, (torch.randn(256, 64) * 0.1).to(torch.bfloat16))
    assert r["fused_us"] is None and "waited for its peer" in r["error"] and resets == ["group"]
    assert r["gemm_us"] == 11.0 and r["baselines"]["nccl"] == 12.0 and r["ours_gemm_us"] == 14.0
