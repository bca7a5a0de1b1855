import os

import pytest

from codegen import env


def test_defaults(monkeypatch):
    for name in env.SWITCHES:
        monkeypatch.delenv(name, raising=False)
    s = env.load()
    assert s.cache_dir == env.repo_root() / "generated"
    assert s.jobs == (os.cpu_count() or 1)
    assert s.disable_multicast is False
    assert s.wait_timeout_ms == 60_000
    assert s.disable_fused is False and s.no_compile is False and s.pdl is False


@pytest.mark.parametrize("name, field", [("CODEGEN_DISABLE_FUSED", "disable_fused"),
                                         ("CODEGEN_NO_COMPILE", "no_compile"),
                                         ("CODEGEN_PDL", "pdl")])
@pytest.mark.parametrize("value, on", [("1", True), ("yes", True), ("junk", True),
                                       ("0", False), ("off", False), ("", False)])
def test_boolean_switches(name, field, value, on):
    assert getattr(env.load({name: value}), field) is on


def test_read_at_call_time(monkeypatch, tmp_path):
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("CODEGEN_JOBS", "3")
    monkeypatch.setenv("CODEGEN_DISABLE_MULTICAST", "yes")
    monkeypatch.setenv("CODEGEN_WAIT_TIMEOUT_MS", "50")
    s = env.load()
    assert (s.cache_dir, s.jobs, s.disable_multicast, s.wait_timeout_ms) == (tmp_path / "c", 3, True, 50)
    assert not (tmp_path / "c").exists()  # load() never creates directories


@pytest.mark.parametrize("name, value", [
    ("CODEGEN_JOBS", "many"), ("CODEGEN_JOBS", "0"), ("CODEGEN_WAIT_TIMEOUT_MS", "abc"),
    ("CODEGEN_WAIT_TIMEOUT_MS", "-5"), ("CODEGEN_WAIT_TIMEOUT_MS", "0"),
    ("CODEGEN_WAIT_TIMEOUT_MS", "1.5"), ("CODEGEN_WAIT_TIMEOUT_MS", "1e3"),
    # past timeout_ms's bound (one hour): the kernels double it in signed 64-bit
    ("CODEGEN_WAIT_TIMEOUT_MS", "3600001"), ("CODEGEN_WAIT_TIMEOUT_MS", str(10**30)),
    # int() takes these; a switch does not (ASCII digits only)
    ("CODEGEN_JOBS", "+5"), ("CODEGEN_JOBS", "1_0"), ("CODEGEN_JOBS", "\uff15"),
    ("CODEGEN_WAIT_TIMEOUT_MS", "+500")])
def test_bad_values_name_the_variable(name, value):
    field = {"CODEGEN_JOBS": "jobs", "CODEGEN_WAIT_TIMEOUT_MS": "wait_timeout_ms"}[name]
    with pytest.raises(ValueError, match=name):
        getattr(env.load({name: value}), field)   # read when used (Settings)


def test_a_bad_value_fails_only_what_reads_it():
    """A junk build-only CODEGEN_JOBS must not fail a serving process (GemmRsAr, check-deploy),
    nor a junk CODEGEN_WAIT_TIMEOUT_MS a build; and an explicit value (-j, timeout_ms=,
    cache_dir=) overrides the variable. Before, load() parsed every switch at once: e.g.
    `CODEGEN_JOBS=0 codegen build -j 1` failed with "CODEGEN_JOBS='0' must be >= 1"."""
    s = env.load({"CODEGEN_JOBS": "0", "CODEGEN_WAIT_TIMEOUT_MS": "abc",
                  "CODEGEN_CACHE_DIR": "~no_such_user_xyz/c", "CODEGEN_PDL": "1"})
    assert s.pdl is True and s.disable_multicast is False
    for field, name in (("jobs", "CODEGEN_JOBS"), ("wait_timeout_ms", "CODEGEN_WAIT_TIMEOUT_MS"),
                        ("cache_dir", "CODEGEN_CACHE_DIR")):
        with pytest.raises(ValueError, match=name):
            getattr(s, field)


def test_explicit_arguments_override_a_bad_variable(monkeypatch, tmp_path):
    from codegen.runtime.op import GemmRsAr

    monkeypatch.setenv("CODEGEN_JOBS", "many")
    monkeypatch.setenv("CODEGEN_WAIT_TIMEOUT_MS", "1e3")
    monkeypatch.setenv("CODEGEN_CACHE_DIR", "~no_such_user_xyz/c")
    op = GemmRsAr(64, 128, 64, "none", device="cpu", arch="sm_90a", timeout_ms=5,
                  cache_dir=tmp_path)
    assert op.timeout_ns == 5_000_000 and op.cache_dir == tmp_path
    with pytest.raises(ValueError, match="CODEGEN_WAIT_TIMEOUT_MS='1e3'"):
        GemmRsAr(64, 128, 64, "none", device="cpu", arch="sm_90a", cache_dir=tmp_path)


@pytest.mark.parametrize("value, disabled", [("1", True), ("yes", True), ("2", True),
                                             ("maybe", True), ("tru", True), (" ON ", True),
                                             ("0", False), ("false", False), ("", False),
                                             ("off", False)])
def test_disable_multicast_fails_closed(value, disabled):
    """A safety switch never fails open: anything but an explicit false value disables."""
    assert env.load({"CODEGEN_DISABLE_MULTICAST": value}).disable_multicast is disabled
    assert (env.multicast_disabled_by({"CODEGEN_DISABLE_MULTICAST": value}) is not None) is disabled


def test_affecting_env():
    assert "CUTE_DSL_ARCH" in env.CODEGEN_AFFECTING_ENV
    assert "CUTE_DSL_OPT_LEVEL" in env.CODEGEN_AFFECTING_ENV
    for name in ("CUTE_DSL_KEEP", "CUTE_DSL_DUMP_DIR", "CUTE_DSL_LOG_LEVEL"):
        assert name not in env.CODEGEN_AFFECTING_ENV
    got = env.affecting_env({"CUTE_DSL_ARCH": "sm_90a", "CUTE_DSL_KEEP": "ptx", "HOME": "/x"})
    assert got == {"CUTE_DSL_ARCH": "sm_90a"}


def test_integer_switches_take_padded_ascii_digits():
    s = env.load({"CODEGEN_JOBS": " 3 ", "CODEGEN_WAIT_TIMEOUT_MS": "0500"})
    assert (s.jobs, s.wait_timeout_ms) == (3, 500)


def test_wait_timeout_range():
    assert env.load({"CODEGEN_WAIT_TIMEOUT_MS": " 3600000 "}).wait_timeout_ms == env.MAX_WAIT_TIMEOUT_MS
    assert env.load({"CODEGEN_WAIT_TIMEOUT_MS": "1"}).wait_timeout_ms == 1


def test_every_switch_documented():
    for name, (default, effect) in env.SWITCHES.items():
        assert name.startswith("CODEGEN_") and default and len(effect) > 20
