"""Trace kernels (codegen build --trace): trace off renders exactly as before, trace on adds
%globaltimer stamps only to the sm_90a tile rs/ar kernels, the CLI keeps them out of serving
roots, and the runtime reads and summarises the stamps (CPU only; the compile test is slow)."""
from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from cache_helpers import run
from codegen import build as buildmod
from codegen import contract, trace_layout
from codegen.build import KeyContext, prepare_job
from codegen.render import default_templates_dir, render, trace_supported
from codegen.spec import Variant, deployment_matrix

FAKE = "fake_compile:compile_source"
SOME = [v for v in deployment_matrix(2) + deployment_matrix(8)
        if v.bn in (128, 16, 64) or v.schedule == "tile"]


def _strip_trace_blocks(text: str) -> tuple[str, int]:
    """The template without its `{% if trace %}` blocks (keeping an `{% else %}` part): what
    it was before the trace blocks existed. Trace blocks are whole lines and never nest."""
    out, state, blocks = [], None, 0
    for line in text.splitlines(keepends=True):
        tag = line.strip()
        if state is None and tag == "{% if trace %}":
            state, blocks = "then", blocks + 1
        elif state == "then" and tag == "{% else %}":
            state = "else"
        elif state is not None and tag == "{% endif %}":
            state = None
        elif state != "then":
            out.append(line)
    assert state is None, "unclosed trace block"
    return "".join(out), blocks


@pytest.fixture(scope="module")
def stripped_templates(tmp_path_factory) -> Path:
    src = default_templates_dir()
    dst = tmp_path_factory.mktemp("templates")
    shutil.copytree(src, dst, dirs_exist_ok=True)
    counts = {}
    for path in dst.rglob("*.j2"):
        text, n = _strip_trace_blocks(path.read_text())
        path.write_text(text)
        counts[path.name] = n
    assert counts["sm90_gemm.py.j2"] >= 8 and counts["comm_phase.py.j2"] >= 6, counts
    for path in dst.rglob("*.j2"):
        assert not re.search(r"\{%-?\s*(el)?if\b[^%]*\btrace\b", path.read_text()), path.name
    return dst


@pytest.mark.parametrize("v", SOME, ids=lambda v: v.name)
def test_trace_off_renders_as_without_the_trace_blocks(v, stripped_templates):
    assert render(v).source == render(v, stripped_templates).source
    assert render(v, trace=False).source == render(v).source


@pytest.mark.parametrize("v", SOME, ids=lambda v: v.name)
def test_trace_on_changes_only_the_sm90_tile_collective_kernels(v):
    on = render(v, trace=True).source
    if trace_supported(v):
        assert on != render(v).source
        assert "mov.u64 $0, %globaltimer;" in on and "from codegen import trace_layout" in on
    else:
        assert on == render(v).source


def test_trace_supported():
    assert trace_supported(Variant("sm_90a", "rs", "unicast", 256, 2, 2))
    assert trace_supported(Variant("sm_90a", "ar", "unicast", 128, 1, 8))
    assert not trace_supported(Variant("sm_90a", "none", None, 128, 1, None))
    assert not trace_supported(Variant("sm_100a", "ar", "unicast", 128, 1, 8))
    assert not trace_supported(Variant("sm_90a", "ar", "unicast", 64, 1, 8, schedule="swapab"))


def test_normal_keys_do_not_depend_on_the_trace_switch():
    ctx, off = KeyContext.current(), KeyContext.current(trace=False)
    on = KeyContext.current(trace=True)
    for v in (Variant("sm_90a", "ar", "unicast", 128, 1, 2), Variant("sm_90a", "none", None, 256, 2, None)):
        job = prepare_job(v, ctx)
        assert prepare_job(v, off).key == job.key and "trace" not in job.meta
        tjob = prepare_job(v, on)
        assert (tjob.key != job.key) == trace_supported(v)
        assert tjob.meta.get("trace", False) == trace_supported(v)
        if trace_supported(v):
            assert "codegen/trace_layout.py" in tjob.meta["helpers"]
            assert "codegen/trace_layout.py" not in job.meta["helpers"]


# ---- the CLI ------------------------------------------------------------------------------------
@pytest.fixture
def trace_build(monkeypatch, tmpl_dir, pkg_dir):
    """The CLI over the test templates and the fake compile step, trace passed through."""
    orig_build, orig_ctx = buildmod.build, KeyContext.current
    monkeypatch.setattr(buildmod, "build", functools.partial(
        orig_build, compile_fn=FAKE, templates_dir=tmpl_dir, package_dir=pkg_dir))
    monkeypatch.setattr(KeyContext, "current", classmethod(
        lambda cls, *a, trace=False, **k: orig_ctx(FAKE, tmpl_dir, pkg_dir, trace=trace)))


ONE = ["build", "--tp", "2", "--arch", "sm_90a", "--mode", "rs", "--transport", "unicast",
       "--bn", "128", "--cta-group", "1", "--schedule", "tile", "--no-progress", "--trace"]


def test_cli_trace_needs_its_own_root(trace_build, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "env-root"))
    rc, out, err = run(capsys, *ONE)
    assert rc == 2 and "--trace needs --cache-dir" in err and not (tmp_path / "env-root").exists()
    from codegen.env import repo_root

    rc, out, err = run(capsys, *ONE, "--cache-dir", str(repo_root() / "generated"))
    assert rc == 2 and "default cache root" in err
    rc, out, err = run(capsys, "--cache-dir", str(repo_root()), *ONE)
    assert rc == 2 and "default cache root" in err
    serving = tmp_path / "serving"
    (serving / "manifests").mkdir(parents=True)
    (serving / "manifests" / "tp2.json").write_text(json.dumps({"format": 2, "entries": []}))
    rc, out, err = run(capsys, *ONE, "--cache-dir", str(serving))
    assert rc == 2 and "manifest of normal kernels (tp2.json)" in err
    assert sorted(p.name for p in serving.iterdir()) == ["manifests"]


def test_cli_trace_build_marks_its_manifest(trace_build, capsys, tmp_path):
    root = tmp_path / "trace"
    rc, out, err = run(capsys, *ONE, "--cache-dir", str(root))
    assert rc == 0, err
    (manifest,) = (root / "manifests").glob("*.json")
    doc = json.loads(manifest.read_text())
    assert doc["trace"] is True and len(doc["entries"]) == 1
    rc, out, err = run(capsys, "--cache-dir", str(root), *ONE)   # a trace root: again is fine
    assert rc == 0, err
    listing = ["list", *ONE[1:13], "--trace"]
    rc, out, err = run(capsys, "--cache-dir", str(root), *listing)
    assert rc == 0 and out.split()[1] == "cached", out
    plain = [a for a in ONE if a != "--trace"]
    rc, out, err = run(capsys, "--cache-dir", str(tmp_path / "plain"), *plain)
    assert rc == 0 and "trace" not in json.loads(next((tmp_path / "plain" / "manifests").glob("*.json")).read_text())


# ---- the runtime: read_stamps / summarize on synthetic stamps -----------------------------------
def _synthetic(ncta=4, epoch=7, t0=10**12):
    s = np.zeros((ncta, trace_layout.SLOTS), dtype=np.int64)
    S = trace_layout.SLOT
    for c in range(ncta):
        e = t0 + 1000 * c                    # entries 0..3 us apart
        s[c, S["entry"]] = e
        s[c, S["gemm_start"]] = e + 2_000
        s[c, S["gemm_end"]] = e + 802_000 + 10_000 * c   # gemm 800 + 10c us
        s[c, S["publish_wait_ns"]] = 5_000 + c
        s[c, S["tiles"]] = 10 + c
        s[c, S["p1_start"]] = e + 500
        s[c, S["p1_end"]] = e + 900_000
        s[c, S["p1_wait_ns"]] = 300_000
        s[c, S["p2_end"]] = e + 1_000_000 + 1000 * c
        s[c, S["p2_wait_ns"]] = 50_000 * c
        s[c, S["units"]] = 3
        s[c, S["producer_end"]] = e + 790_000
        s[c, S["end"]] = e + 1_001_000 + 1000 * c
        s[c, S["epoch"]] = epoch
        s[c, S["ncta"]] = ncta
        s[c, S["magic"]] = trace_layout.MAGIC
    return s


def test_summarize_synthetic():
    from codegen.runtime.trace import summarize

    r = summarize(_synthetic())
    assert r["ncta"] == 4
    assert r["gemm_us"] == {"median": 815.0, "max": 830.0, "min": 800.0}
    assert r["kernel_us"] == pytest.approx(3 + 1001 + 3)           # last CTA: entry 3, end +1004
    assert r["gemm_done_us"] == pytest.approx(3 + 832)
    assert r["tail_us"] == pytest.approx((3 + 1003) - (3 + 832))
    assert r["comm_tail_us"]["max"] == pytest.approx(198.0)         # CTA 0: 1000 - 802
    assert r["comm_tail_us"]["min"] == pytest.approx(1003 - 832)
    assert r["p1_tail_global_us"] == pytest.approx(900 - 832)
    assert r["phase1_wait_us"]["median"] == 300.0 and r["phase2_wait_us"]["max"] == 150.0
    assert r["publish_wait_us"]["max"] == pytest.approx(5.003)
    assert r["tiles"] == {"sum": 46, "min": 10, "max": 13} and r["units"]["sum"] == 12
    assert r["entry_skew_us"] == 3.0 and r["first_tile_us"]["median"] == 2.0
    with pytest.raises(ValueError):
        summarize(np.zeros((0, 16)))


class _Buf:
    def __init__(self, t):
        self.local = t


class _Group:
    """A group of one rank whose workspace is a CPU tensor (read_stamps needs nothing else)."""

    def __init__(self, max_M, N):
        import torch

        self.max_M, self.N, self.tp = max_M, N, 2
        self.rows_pad = contract.rows_pad(max_M)
        self.workspace_rows = contract.workspace_rows(self.rows_pad, self.tp)
        self.ws = torch.zeros(2, self.workspace_rows, N, dtype=torch.bfloat16)
        self.fl = torch.zeros(contract.flag_words(max_M, N, 2), dtype=torch.int64)

    def workspace(self, rank):
        return _Buf(self.ws)

    def flags(self, rank):
        return _Buf(self.fl)

    def write(self, parity, stamps):
        """What the kernel does: CTA c's slots at trace_layout's byte offset."""
        import torch

        raw = self.ws.view(-1).view(torch.uint8)
        off = trace_layout.region_offset(parity, self.workspace_rows, self.N)
        data = torch.from_numpy(np.ascontiguousarray(stamps, dtype="<i8").view(np.uint8).reshape(-1).copy())
        raw[off: off + len(data)] = data


def test_read_stamps_round_trip():
    pytest.importorskip("torch")
    from codegen.runtime.trace import TraceError, last_epoch, read_stamps

    g = _Group(max_M=16384 + 512, N=7168)
    s = _synthetic(ncta=132, epoch=9)
    g.write(1, s)
    g.fl[contract.FLAG_EPOCH] = 9
    e = last_epoch(g, 0)
    got = read_stamps(g, 0, 16384, e % 2, epoch=e, cta_group=2)
    assert got.shape == (132, 16) and (got == s).all()
    assert (read_stamps(g, 0, 16384, e % 2, epoch=e, cta_group=2, pushed=False) == s).all()
    with pytest.raises(TraceError, match="no stamps"):
        read_stamps(g, 0, 16384, 0)
    with pytest.raises(TraceError, match="not 11"):
        read_stamps(g, 0, 16384, 1, epoch=11)
    with pytest.raises(TraceError, match="no free rows"):
        read_stamps(g, 0, 16384 + 400, 1)                 # pushed: the chunk leaves no room
    with pytest.raises(TraceError, match="no free rows"):
        read_stamps(g, 0, 17025, 1, pushed=False)         # pulled: the tiles reach the stamps
    s[5, trace_layout.SLOT["epoch"]] = 7
    g.write(1, s)
    with pytest.raises(TraceError, match=r"CTAs \[5\] hold stamps of epoch 7"):
        read_stamps(g, 0, 4096, 1)


def test_layout_fits_matches_the_condition():
    rp = contract.rows_pad(16384 + 512)           # 16896: stamps fit while the tiles end <= 16768
    assert trace_layout.fits(16384, 2, rp, 7168, 131)
    assert trace_layout.gemm_rows(16385, 2) == 16640 and trace_layout.gemm_rows(16385, 1) == 16512
    assert trace_layout.fits(16641, 1, rp, 7168, 0)               # 131 tiles of 128 = 16768
    assert not trace_layout.fits(16641, 2, rp, 7168, 0)           # cta_group 2 rounds up to 16896
    assert not trace_layout.fits(16769, 1, rp, 7168, 0)
    assert not trace_layout.fits(4096, 1, rp, 128, 16) and trace_layout.fits(4096, 1, rp, 128, 15)
    assert trace_layout.max_ctas(7168) == 896
    # pushed (tp 2): slots of rp / 2 data rows after a guard; a chunk + BM + the stamp rows fit
    wr = contract.workspace_rows(rp, 2)
    assert trace_layout.fits(2 * (rp // 2 - 136), 1, wr, 7168, 0, 2)
    assert not trace_layout.fits(2 * (rp // 2 - 136) + 1, 1, wr, 7168, 0, 2)


# ---- a real compile (slow): the stamps are in the PTX, the entry is the contract's ---------------
@pytest.mark.slow
def test_trace_kernels_compile(tmp_path):
    from codegen.build import build
    from codegen.cache import Cache

    vs = [Variant("sm_90a", "rs", "unicast", 256, 2, 2), Variant("sm_90a", "ar", "unicast", 128, 1, 2)]
    report = build(vs, jobs=2, cache=Cache(tmp_path), progress=False, trace=True)
    assert report.ok, report.failed
    for v in vs:
        entry = report.entries[v]
        ptx = entry.file("kernel.ptx").read_text()
        meta = json.loads(entry.file("meta.json").read_text())
        assert meta["trace"] is True
        assert [(p["name"], p["kind"]) for p in meta["abi"]["params"]] == \
            list(contract.kernel_params("sm_90a", v.mode))
        # the stamps: plain u64 stores of %globaltimer reads (the spin waits read it too)
        assert len(re.findall(r"st\.global\.u64", ptx)) >= trace_layout.SLOTS
        assert re.search(r"mov\.u64 %rd\d+, %globaltimer;", ptx)
        # the publish wait is timed around the TMA store completion wait
        timed = (r"%globaltimer;\s*// end inline asm\s*cp\.async\.bulk\.wait_group\s+0;\s*"
                 r"// begin inline asm\s*fence\.proxy\.async\.global;\s*// end inline asm\s*"
                 r"// begin inline asm\s*mov\.u64 %rd\d+, %globaltimer;")
        assert len(re.findall(timed, ptx)) == 2   # in the tile loop and after it
        res = next(iter(meta["resources"]["kernels"].values()))
        assert res["local_bytes"] == 0, "the stamps must not make the kernel spill"


# ---- tools/trace_phases.py: its pure parts (the run itself needs GPUs) ----------------------------
def _tool():
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "tools" / "trace_phases.py"
    spec = importlib.util.spec_from_file_location("trace_phases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_trace_phases_table_line_and_refusal(monkeypatch, capsys):
    from codegen.runtime.trace import summarize

    tool = _tool()
    rep = {"event_us": 1010.0, **summarize(_synthetic())}
    row = {"mode": "rs", "K": 2304, "M": 16384, "rank": 1, "relerr": 1.2e-3, "none_us": 850.2,
           "variant": "gemm_rs_unicast_sm90a_bn256_cg2_tp2_bf16",
           "reps": [{**rep, "kernel_us": 2000.0}, rep, {**rep, "kernel_us": 1.0}]}
    assert tool.median_rep(row) is row["reps"][1]
    cells = [c.strip() for c in tool.line(row).split("|")]
    assert len(cells) == len(tool.COLUMNS)
    assert cells[:7] == ["rs", "2304", "16384", "1", "256/2", "1010", "1007"]
    assert cells[7] == "815/830" and cells[-2:] == ["850", "1.2e-03"]
    monkeypatch.delenv("CODEGEN_CACHE_DIR", raising=False)
    assert tool.main([]) == 2 and "CODEGEN_CACHE_DIR" in capsys.readouterr().err
    from codegen.env import repo_root

    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(repo_root() / "generated"))
    assert tool.main([]) == 2
