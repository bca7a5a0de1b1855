"""The measured dispatch table (codegen/runtime/tuning.py): format, choice, crossover, errors."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.runtime.tuning import (Row, TuningError, TuningTable, candidates, crossover_m,
                                    find_table, swapab_bn, table_path, write_table)

HEAD = {"arch": "sm_90a", "mode": "ar", "tp": 2, "N": 7168, "K": 768}


def _row(M, schedule="tile", bn=128, cg=1, fused=10.0, base=20.0, which="symm_two_shot"):
    return {"M": M, "schedule": schedule, "bn": bn, "cta_group": cg, "fused_us": fused,
            "best_unfused_us": base, "best_unfused": which}


ROWS = [_row(16, "swapab", 16, fused=25.0), _row(64, "swapab", 64), _row(512, "tile", 128, 2),
        _row(2048, "tile", 256, 2, fused=100.0, base=120.0)]


def _doc(**over):
    doc = {"format": 1, **HEAD, "device": "NVIDIA H200", "date": "2026-12-01T00:00:00+00:00",
           "command": "torchrun ...", "rows": [dict(r) for r in ROWS], "crossover_m": 64}
    doc.update(over)
    return doc


def _write(tmp_path, doc) -> Path:
    path = table_path(tmp_path, **HEAD)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


@pytest.fixture
def table(tmp_path) -> TuningTable:
    return write_table(table_path(tmp_path, **HEAD), **HEAD, rows=ROWS, device="NVIDIA H200",
                       command="torchrun ...", date="2026-12-01T00:00:00+00:00")


def test_round_trip(tmp_path, table):
    path = table_path(tmp_path, **HEAD)
    assert path == tmp_path / "tuning" / "sm_90a_ar_tp2_n7168_k768.json"
    assert json.loads(path.read_text()) == _doc()
    loaded = find_table(tmp_path, **HEAD)
    assert loaded == TuningTable.load(path) and loaded.rows == table.rows
    assert loaded.crossover_m == 64 and loaded.ms == (16, 64, 512, 2048)
    assert loaded.rows[0] == Row(16, "swapab", 16, 1, 25.0, 20.0, "symm_two_shot")
    assert not [p for p in path.parent.iterdir() if p.name != path.name]  # no temp file left


def test_write_replaces_and_sorts(tmp_path, table):
    path = table_path(tmp_path, **HEAD)
    t2 = write_table(path, **HEAD, rows=[_row(256, fused=30.0), _row(32)])
    assert t2.ms == (32, 256) and t2.crossover_m is None and t2.date
    assert find_table(tmp_path, **HEAD).ms == (32, 256)


@pytest.mark.parametrize("M,expected", [
    (1, ("swapab", 16, 1)), (16, ("swapab", 16, 1)),          # below / at the smallest
    (17, ("swapab", 64, 1)), (64, ("swapab", 64, 1)),          # between / at
    (65, ("tile", 128, 2)), (512, ("tile", 128, 2)), (513, ("tile", 256, 2)),
    (2048, ("tile", 256, 2)), (100_000, ("tile", 256, 2)),     # at / above the largest
])
def test_choice(table, M, expected):
    assert table.choice(M) == expected


@pytest.mark.parametrize("M", [0, -1, 1.5, True, None])
def test_choice_rejects_bad_m(table, M):
    with pytest.raises(ValueError, match="M ="):
        table.choice(M)


@pytest.mark.parametrize("points,expected", [
    ([], None),
    ([(16, 0.5), (64, 1.2), (512, 1.0), (2048, 1.3)], 64),
    ([(16, 1.1), (64, 0.9), (512, 1.2)], 512),
    ([(16, 1.1), (64, 1.2)], 16),
    ([(16, 1.5), (2048, 0.99)], None),
    ([(2048, 1.3), (16, 0.5), (64, 1.2)], 64),                 # order does not matter
])
def test_crossover(points, expected):
    assert crossover_m(points) == expected


def test_tools_use_the_one_crossover():
    tools = Path(__file__).resolve().parent.parent / "tools"
    assert not [p.name for p in tools.glob("*.py") if "def crossover_m" in p.read_text()]
    assert "from codegen.runtime.tuning import crossover_m" in (tools / "bench_report.py").read_text()


def test_swapab_tile_and_candidates():
    assert [swapab_bn(m) for m in (1, 16, 17, 100, 256, 257, 8192)] == [16, 16, 32, 128, 256, 256, 256]
    assert candidates(16, 7168) == [("tile", 128, 1), ("tile", 128, 2), ("tile", 224, 1),
                                    ("tile", 224, 2), ("tile", 256, 1), ("tile", 256, 2),
                                    ("swapab", 16, 1), ("swapab", 16, 2)]
    # a width serves only an N it divides: 224 not at N = 8192, 256 not at N = 7168 + 128
    assert [c for c in candidates(4096, 8192)] == [("tile", bn, cg) for bn in (128, 256) for cg in (1, 2)]
    # 7296 = 57 x 128 = 38 x 192: the tuner measures every width that serves N (rs/ar have 160 /
    # 192 on sm_90a since the thirteenth session; sm_100a has 128 only here)
    assert [c for c in candidates(4096, 7296)] == [("tile", bn, cg) for bn in (128, 192)
                                                    for cg in (1, 2)]
    assert [c for c in candidates(4096, 7296, "sm_100a")] == [("tile", 128, 1), ("tile", 128, 2)]
    assert candidates(300, 128 * 3, "sm_100a") == [("tile", 128, 1), ("tile", 128, 2),
                                                   ("swapab", 64, 1), ("swapab", 128, 1),
                                                   ("swapab", 256, 1)]
    # several token tiles (down to M / 8) compete: the push of one overlaps the next one's MMA;
    # on sm_90a each also as a CTA pair splitting K (cta_group 2)
    assert [c[1:] for c in candidates(128, 7168) if c[0] == "swapab"] == [
        (16, 1), (16, 2), (32, 1), (32, 2), (64, 1), (64, 2), (128, 1), (128, 2)]
    assert all(c[0] == "tile" for c in candidates(2048, 7168))  # past the landing rows
    # mode none on sm_90a also has the token tiles 80/96/112/144/160/192/208/224, rs/ar 160 (none on
    # sm_100a)
    assert [swapab_bn(m, "sm_90a", "none") for m in (129, 145, 160, 161, 200, 209, 225, 300)] == [
        144, 160, 160, 192, 208, 224, 256, 256]
    assert [swapab_bn(m, "sm_100a", "none") for m in (129, 200)] == [256, 256]
    assert [c[1] for c in candidates(300, 7168, mode="none") if c[0] == "swapab" and c[2] == 1] == [
        64, 80, 96, 112, 128, 144, 160, 192, 208, 224, 256]
    assert [c[1] for c in candidates(300, 7168, mode="ar") if c[0] == "swapab" and c[2] == 1] == [
        64, 128, 160, 256]
    assert [swapab_bn(m, "sm_90a", "rs") for m in (129, 160, 161)] == [160, 160, 256]


def test_a_table_at_an_n_no_width_divides(tmp_path):
    """sm_90a: a sweep at N 704 (11 x 64) times tile widths reaching past N past the decode
    rows, and its table must be written and read back (before: every such row was refused, and
    bench_decode --tune-out lost the sweep); mode none since the thirteenth session, rs/ar since
    the fourteenth. sm_100a's tiles do not reach past N."""
    from codegen.runtime.tuning import TuningError, find_table, table_path, write_table
    row = {"M": 1024, "schedule": "tile", "bn": 192, "cta_group": 2, "fused_us": 10.0,
           "best_unfused_us": 11.0, "best_unfused": "torch_mm"}
    assert ("tile", 192, 2) in candidates(1024, 704, "sm_90a", "none")
    p = table_path(tmp_path, "sm_90a", "none", 1, 704, 1536)
    write_table(p, arch="sm_90a", mode="none", tp=1, N=704, K=1536, rows=[row], device="x",
                command="x")
    assert find_table(tmp_path, "sm_90a", "none", 1, 704, 1536).choice(1024) == ("tile", 192, 2)
    for mode in ("rs", "ar"):
        assert ("tile", 192, 2) in candidates(1024, 704, "sm_90a", mode)
        write_table(table_path(tmp_path, "sm_90a", mode, 2, 704, 1536), arch="sm_90a",
                    mode=mode, tp=2, N=704, K=1536, rows=[row], device="x", command="x")
        assert find_table(tmp_path, "sm_90a", mode, 2, 704, 1536).choice(1024) == ("tile", 192, 2)
    wide = dict(row, bn=256)
    with pytest.raises(TuningError, match="do not serve N = 384"):
        write_table(table_path(tmp_path, "sm_100a", "rs", 2, 384, 1536), arch="sm_100a",
                    mode="rs", tp=2, N=384, K=1536, rows=[wide], device="x", command="x")
    # ...and a file with such a row (written by hand or an older codegen) is refused on load
    path = table_path(tmp_path, "sm_100a", "ar", 2, 7168 + 128, 768)
    path.write_text(json.dumps(_doc(arch="sm_100a", N=7168 + 128,
                                    rows=_bad_rows(schedule="tile", bn=256))))
    with pytest.raises(TuningError, match="do not serve N = 7296"):
        find_table(tmp_path, "sm_100a", "ar", 2, 7168 + 128, 768)


def test_table_rows_name_a_token_tile_of_their_mode(tmp_path):
    """A mode-none table may name token tile 192; an rs/ar table may not (no such kernel), but
    160 (which both have)."""
    from codegen.runtime.tuning import TuningError, TuningTable
    none = _doc()
    none.update(mode="none", tp=1)
    none["rows"][0].update(schedule="swapab", bn=192, cta_group=1)
    assert TuningTable.from_dict(none, derive_crossover=True).choice(none["rows"][0]["M"])[1] == 192
    rs = _doc()
    rs["rows"][0].update(schedule="swapab", bn=160, cta_group=1)
    assert TuningTable.from_dict(rs, derive_crossover=True).choice(rs["rows"][0]["M"])[1] == 160
    rs["rows"][0].update(schedule="swapab", bn=192, cta_group=1)
    with pytest.raises(TuningError, match="bn"):
        TuningTable.from_dict(rs, derive_crossover=True)
    # cta_group 3 (the 192-row W tile): mode none at its own token tiles only
    none["rows"][0].update(schedule="swapab", bn=112, cta_group=3)
    assert TuningTable.from_dict(none, derive_crossover=True).choice(none["rows"][0]["M"]) == (
        "swapab", 112, 3)
    none["rows"][0].update(schedule="swapab", bn=224, cta_group=3)
    with pytest.raises(TuningError, match="token tile 224 with cta_group 3"):
        TuningTable.from_dict(none, derive_crossover=True)
    rs["rows"][0].update(schedule="swapab", bn=128, cta_group=3)
    with pytest.raises(TuningError, match="ar swapab kernel has token tile 128 with cta_group 3"):
        TuningTable.from_dict(rs, derive_crossover=True)
    # the sweep's candidates: cta_group 3 for mode none at its token tiles, never for rs/ar
    assert [c[1] for c in candidates(300, 7168, mode="none") if c[2] == 3] == [
        64, 80, 96, 112, 128, 144, 160, 192]
    assert not [c for c in candidates(300, 7168, mode="rs") if c[2] == 3]


def test_absent_is_none(tmp_path):
    assert find_table(tmp_path, **HEAD) is None
    _write(tmp_path, _doc())
    assert find_table(tmp_path, **{**HEAD, "K": 1536}) is None
    assert find_table(tmp_path, **{**HEAD, "mode": "rs"}) is None


def _bad_rows(**change):
    rows = [dict(r) for r in ROWS]
    rows[1].update(change)
    return rows


MALFORMED = {
    "not json": ("{", "not valid JSON"),
    "list": ([], "not an object"),
    "missing key": ({k: v for k, v in _doc().items() if k != "device"}, "missing device"),
    "unknown key": (_doc(extra=1), "unknown extra"),
    "format": (_doc(format=2), "format is 2"),
    "format bool": (_doc(format=True), "format is True"),
    "arch": (_doc(arch="sm_80"), "arch is 'sm_80'"),
    "mode": (_doc(mode="xx"), "mode is 'xx'"),
    "tp for none": (_doc(mode="none"), "tp is 2"),
    "tp 1 for ar": (_doc(tp=1), "tp is 1"),
    "tp str": (_doc(tp="2"), "tp is '2'"),
    "N": (_doc(N=0), "N is 0"),
    "K multiple": (_doc(K=100), "K is 100"),
    "device": (_doc(device=None), "device is None"),
    "rows empty": (_doc(rows=[]), "non-empty list"),
    "rows dict": (_doc(rows={}), "non-empty list"),
    "row not object": (_doc(rows=[1]), "rows[0] is a int"),
    "row missing": (_doc(rows=[{k: v for k, v in ROWS[0].items() if k != "bn"}]), "missing bn"),
    "row unknown": (_doc(rows=_bad_rows(x=1)), "rows[1]: unknown x"),
    "M zero": (_doc(rows=_bad_rows(M=0)), "rows[1]: M is 0"),
    "M float": (_doc(rows=_bad_rows(M=64.0)), "M is 64.0"),
    "schedule": (_doc(rows=_bad_rows(schedule="fast")), "schedule is 'fast'"),
    "tile bn": (_doc(rows=_bad_rows(schedule="tile", bn=64)), "bn is 64"),
    "swapab bn": (_doc(rows=_bad_rows(bn=48)), "bn is 48"),
    "swapab cg4": (_doc(rows=_bad_rows(cta_group=4)), "cta_group is 4"),
    "fused zero": (_doc(rows=_bad_rows(fused_us=0)), "fused_us is 0"),
    "fused nan": (_doc(rows=_bad_rows(fused_us=float("nan"))), "fused_us is nan"),
    "base str": (_doc(rows=_bad_rows(best_unfused_us="20")), "best_unfused_us is '20'"),
    "which empty": (_doc(rows=_bad_rows(best_unfused="")), "best_unfused is ''"),
    "duplicate M": (_doc(rows=ROWS + [ROWS[1]]), "M = 64 has more than one row"),
    "crossover wrong": (_doc(crossover_m=16), "crossover_m is 16 but the rows give 64"),
    "crossover missing value": (_doc(crossover_m=None), "crossover_m is None but the rows give 64"),
    "crossover str": (_doc(crossover_m="64"), "not an int or null"),
    "other config": (_doc(K=1536), "names another configuration: K is 1536"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_raises(tmp_path, case):
    doc, message = MALFORMED[case]
    path = _write(tmp_path, doc)
    with pytest.raises(TuningError, match=re.escape(message)) as info:
        find_table(tmp_path, **HEAD)
    assert str(path) in str(info.value) and isinstance(info.value, ValueError)


def test_unreadable_files_raise(tmp_path):
    path = table_path(tmp_path, **HEAD)
    path.parent.mkdir(parents=True)
    path.mkdir()
    with pytest.raises(TuningError, match="not a regular file|cannot open"):
        find_table(tmp_path, **HEAD)
    path.rmdir()
    os.symlink(tmp_path / "nowhere.json", path)
    with pytest.raises(TuningError, match=str(path)):
        find_table(tmp_path, **HEAD)
    path.unlink()
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(TuningError, match="not valid JSON"):
        TuningTable.load(path)


def test_a_linked_table_is_named_a_link(tmp_path):
    """A table linked into tuning/ (a valid one, or a dangling link) is refused, as every cache
    file that is no regular file is, with a message that says it is a link. Before: 'cannot open
    (Too many levels of symbolic links)', O_NOFOLLOW's ELOOP, for a link that loops nowhere."""
    real = tmp_path / "elsewhere.json"
    real.write_text(json.dumps(_doc()))
    path = table_path(tmp_path, **HEAD)
    path.parent.mkdir(parents=True)
    for target in (real, tmp_path / "nowhere.json"):
        path.unlink(missing_ok=True)
        os.symlink(target, path)
        with pytest.raises(TuningError, match=r"is a symbolic link: .*copy the file there") as e:
            find_table(tmp_path, **HEAD)
        assert "Too many levels" not in str(e.value)


def test_write_refuses_a_bad_table_and_keeps_the_old(tmp_path, table):
    path = table_path(tmp_path, **HEAD)
    before = path.read_text()
    with pytest.raises(TuningError, match="fused_us is -1"):
        write_table(path, **HEAD, rows=[_row(16, fused=-1)])
    with pytest.raises(TuningError, match="rows\\[0\\] is a str"):
        write_table(path, **HEAD, rows=["x"])
    assert path.read_text() == before


def test_module_is_pure():
    code = ("import sys, codegen.runtime.tuning\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'cutlass', 'jinja2')]\n"
            "assert not bad, bad\n")
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
