"""tools/merge_tuning.py: mode-none table rows re-picked from candidate sweeps (CPU only)."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import merge_tuning  # noqa: E402
from codegen.runtime.tuning import find_table, write_table  # noqa: E402


def _sweep(points):
    """A bench_decode --json document: points = {(K, M): (torch warm, torch cold,
    {(schedule, bn, cg): (us warm, us cold)})}."""
    rows = []
    for (K, M), (t, tc, cands) in points.items():
        fused = {"dispatch": {"us": 1.0, "us_cold": 1.0, "choice": ["tile", 128, 1]}}
        for (sched, bn, cg), (us, usc) in cands.items():
            fused[f"{sched}{bn}c{cg}"] = {"us": us, "us_cold": usc, "choice": [sched, bn, cg]}
        rows.append({"K": K, "M": M, "N": 7168, "torch_mm_us": t, "torch_mm_cold_us": tc,
                     "fused": fused})
    return {"rows": rows}


def _base(tmp_path):
    rows = [{"M": m, "schedule": "tile", "bn": 128, "cta_group": 1, "fused_us": 10.0,
             "best_unfused_us": 10.0, "best_unfused": "torch_mm"} for m in (512, 2048)]
    write_table(tmp_path / "base" / "tuning" / "sm_90a_none_tp1_n7168_k768.json", arch="sm_90a",
                mode="none", tp=1, N=7168, K=768, rows=rows, device="test", command="base")
    (tmp_path / "base" / "tuning" / "sm_90a_rs_tp2_n7168_k768.json").write_text('{"keep": 1}')
    return tmp_path / "base"


def test_rows_change_only_past_the_margin_and_new_ms_get_rows(tmp_path, capsys):
    base = _base(tmp_path)
    t128, t224, t256 = ("tile", 128, 1), ("tile", 224, 2), ("tile", 256, 1)
    s1 = {(768, 512): (10.0, 10.0, {t128: (10.0, 10.0), t224: (9.9, 9.9)}),       # +1%: stays
          (768, 2048): (30.0, 30.0, {t128: (34.0, 34.0), t224: (31.0, 30.0)}),     # re-picked
          (768, 8192): (120.0, 120.0, {t128: (130.0, 130.0), t256: (115.0, 118.0)})}
    s2 = {(768, 512): (10.0, 10.0, {t128: (10.0, 10.0), t224: (9.9, 9.9)}),
          (768, 2048): (30.0, 30.0, {t128: (34.0, 34.0), t224: (32.0, 31.0)}),
          (768, 8192): (120.0, 120.0, {t128: (130.0, 130.0), t256: (116.0, 117.0)})}
    paths = []
    for i, s in enumerate((s1, s2)):
        paths.append(tmp_path / f"s{i}.json")
        paths[-1].write_text(json.dumps(_sweep(s)))
    out = tmp_path / "out"
    args = ["--base", str(base), "--out", str(out)]
    for p in paths:
        args += ["--sweep", str(p)]
    assert merge_tuning.main(args) == 0
    table = find_table(out, "sm_90a", "none", 1, 7168, 768)
    got = {r.M: (r.schedule, r.bn, r.cta_group) for r in table.rows}
    assert got == {512: t128, 2048: t224, 8192: t256}
    # the worse sweep's worse regime scores it: 30 / 32 at M = 2048
    row = {r.M: r for r in table.rows}[2048]
    assert row.fused_us == 31.0 and row.best_unfused_us == 30.0
    assert json.loads((out / "tuning" / "sm_90a_rs_tp2_n7168_k768.json").read_text()) == {"keep": 1}
    assert "merge_tuning" in table.command and "M=2048" in table.command


def test_a_candidate_missing_from_one_sweep_is_not_picked(tmp_path):
    t128, t224 = ("tile", 128, 1), ("tile", 224, 2)
    s1 = _sweep({(768, 2048): (30.0, 30.0, {t128: (34.0, 34.0), t224: (20.0, 20.0)})})
    s2 = _sweep({(768, 2048): (30.0, 30.0, {t128: (34.0, 34.0)})})
    scores = merge_tuning.scores_of([s1, s2])
    assert set(scores[(768, 2048)]) == {t128}
