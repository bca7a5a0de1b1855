"""CODEGEN_NO_COMPILE (CPU): build and compile refuse, naming the switch, before any work; the
runtime's lookup and load path works unchanged on a cache built before the switch was set."""
import os
import subprocess
import sys

import pytest

from cache_helpers import B, TP2, build_b, fake_build, run  # noqa: F401 - fake_build is a fixture
from codegen.build import build
from codegen.cache import Cache
from codegen.compile import NoCompileError, compile_source
from codegen.runtime.cache_index import build_command, find_entry
from codegen.runtime.kernel import LoadedKernel
from codegen.spec import Variant

V = Variant.parse(TP2)


def test_codegen_build_refuses_before_any_worker(capsys, fake_build, monkeypatch, tmp_path):
    count = tmp_path / "compiles"
    count.mkdir()
    monkeypatch.setenv("FAKE_COMPILE_COUNT_DIR", str(count))
    monkeypatch.setenv("CODEGEN_NO_COMPILE", "1")
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress")
    assert rc == 1 and out == ""
    assert err.startswith("error: codegen build refused: CODEGEN_NO_COMPILE='1' is set, so this "
                          "process must not compile")
    assert list(count.iterdir()) == [] and not fake_build.exists()  # no worker, no manifest, no root


def test_build_refuses_even_when_everything_is_cached(capsys, fake_build, monkeypatch):
    build_b(capsys, "2")
    monkeypatch.setenv("CODEGEN_NO_COMPILE", "yes")
    with pytest.raises(NoCompileError, match="CODEGEN_NO_COMPILE='yes'"):
        build([V], cache=Cache(fake_build), progress=False)


@pytest.mark.parametrize("value", ["0", "off", ""])
def test_an_explicit_false_value_builds(capsys, fake_build, monkeypatch, value):
    monkeypatch.setenv("CODEGEN_NO_COMPILE", value)
    assert "cached 0, failed 0" in build_b(capsys, "2")


def test_compile_source_refuses_before_importing_the_dsl(tmp_path):
    code = ("import sys; from codegen.compile import NoCompileError, compile_source\n"
            "from codegen.spec import Variant\n"
            f"try: compile_source(Variant.parse({TP2!r}), 'not a kernel', {str(tmp_path)!r})\n"
            "except NoCompileError as e: print('refused', 'cutlass' in sys.modules, e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, CODEGEN_NO_COMPILE="1"))
    assert proc.stdout.startswith(f"refused False compiling {TP2} refused: CODEGEN_NO_COMPILE='1'"), proc.stderr


def test_compile_source_reads_the_switch_at_call_time(monkeypatch, tmp_path):
    monkeypatch.setenv("CODEGEN_NO_COMPILE", "on")
    with pytest.raises(NoCompileError):
        compile_source(V, "not a kernel", tmp_path)


def test_the_runtime_looks_up_and_loads_with_the_switch_on(capsys, fake_build, monkeypatch):
    build_b(capsys, "2")
    monkeypatch.setenv("CODEGEN_NO_COMPILE", "1")
    entry = find_entry(fake_build, V.arch, V.name, build_command(V.arch, V.mode, V.tp))
    kernel = LoadedKernel(entry, 0)  # what GemmRsAr.kernel() makes; the cubin loads on first launch
    assert kernel.variant == V and kernel.contract_mismatch() is None
    assert kernel.entry.cubin == (entry.dir / "kernel.cubin").read_bytes()
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress")  # while build refuses
    assert rc == 1 and "CODEGEN_NO_COMPILE" in err
