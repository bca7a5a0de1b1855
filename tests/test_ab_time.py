"""tools/ab_time.py: the alternating order, the per-run environment and files, and its refusals
(no GPU needed: the timed command here is a small Python program)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import ab_time  # noqa: E402


def test_schedule_alternates_so_each_side_is_first_as_often_as_last():
    assert ab_time.schedule(["new", "old"], 2) == [("new", 1), ("old", 1), ("old", 2), ("new", 2)]
    assert ab_time.schedule(["a", "b", "c"], 1) == [("a", 1), ("b", 1), ("c", 1)]
    assert ab_time.schedule(["a", "b"], 3)[-2:] == [("a", 3), ("b", 3)]


def test_runs_each_side_with_its_root_and_fills_in_the_placeholders(tmp_path, capsys):
    roots = {"new": tmp_path / "r_new", "old": tmp_path / "r_old"}
    for r in roots.values():
        r.mkdir()
    prog = ("import json, os, sys; json.dump({'root': os.environ['CODEGEN_CACHE_DIR'], "
            "'label': sys.argv[2]}, open(sys.argv[1], 'w')); print('ran', sys.argv[2])")
    out = tmp_path / "ab"
    rc = ab_time.main(["--side", f"new={roots['new']}", "--side", f"old={roots['old']}",
                       "--out", str(out), "--", sys.executable, "-c", prog, "{json}", "{label}"])
    assert rc == 0
    for label, side in (("new1", "new"), ("old1", "old"), ("old2", "old"), ("new2", "new")):
        got = json.loads((out / f"{label}.json").read_text())
        assert got == {"root": str(roots[side]), "label": label}
        assert (out / f"{label}.txt").read_text().strip() == f"ran {label}"
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["new1", "old1", "old2", "new2"]


def test_counts_failed_and_timed_out_runs(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    prog = "import os, sys, time; sys.exit(3) if os.environ['CODEGEN_CACHE_DIR'].endswith('b') else time.sleep(5)"
    rc = ab_time.main(["--side", f"a={a}", "--side", f"b={b}", "--reps", "1", "--timeout", "0.5",
                       "--out", str(tmp_path / "o"), "--", sys.executable, "-c", prog])
    assert rc == 2                      # b exited 3, a ran past its timeout


@pytest.mark.parametrize("bad", [
    ["--side", "new=x", "--out", "o", "--", "true"],                       # one side
    ["--side", "a=x", "--side", "a=y", "--out", "o", "--", "true"],        # same name twice
    ["--side", "a=x", "--side", "b=y", "--out", "o"],                      # no command
    ["--side", "nonsense", "--side", "b=y", "--out", "o", "--", "true"],   # not NAME=ROOT
])
def test_refuses_bad_arguments(bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        ab_time.main(bad)
    assert e.value.code == 2


def test_refuses_a_missing_root_before_running_anything(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here").mkdir()
    with pytest.raises(SystemExit):
        ab_time.main(["--side", "a=here", "--side", "b=not_built", "--out", "o", "--", "true"])
    assert not (tmp_path / "o").exists()
