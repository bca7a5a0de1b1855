"""Multicast policy: env switches and missing pointers decide without touching a device."""
import pytest

from codegen.runtime.transport import multicast_disabled_by_env, multicast_unavailable_reason


@pytest.mark.parametrize("env,reason", [
    ({}, None),
    ({"TORCH_SYMM_MEM_DISABLE_MULTICAST": "1"}, "TORCH_SYMM_MEM_DISABLE_MULTICAST=1"),
    ({"NCCL_NVLS_ENABLE": "0"}, "NCCL_NVLS_ENABLE=0"),
    ({"NCCL_NVLS_ENABLE": "1"}, None),
    ({"CODEGEN_DISABLE_MULTICAST": "1"}, "CODEGEN_DISABLE_MULTICAST=1"),
    ({"CODEGEN_DISABLE_MULTICAST": "yes"}, "CODEGEN_DISABLE_MULTICAST=yes"),
    ({"CODEGEN_DISABLE_MULTICAST": "2"}, "CODEGEN_DISABLE_MULTICAST=2"),       # fails closed
    ({"CODEGEN_DISABLE_MULTICAST": "maybe"}, "CODEGEN_DISABLE_MULTICAST=maybe"),
    ({"CODEGEN_DISABLE_MULTICAST": "0"}, None),
    ({"NVSHMEM_DISABLE_NVLS": "1"}, "NVSHMEM_DISABLE_NVLS=1"),
])
def test_env_switches(env, reason):
    assert multicast_disabled_by_env(env) == reason


def test_zero_pointer_needs_no_device():
    assert "no multicast pointer" in multicast_unavailable_reason([0, 0], None, {})
    assert "no multicast pointer" in multicast_unavailable_reason([], None, {})


def test_switch_checked_before_device():
    assert "NCCL_NVLS_ENABLE=0" in multicast_unavailable_reason([1, 2], 0, {"NCCL_NVLS_ENABLE": "0"})


@pytest.mark.parametrize("value", ["2", "maybe"])
def test_unparseable_switch_drops_the_multicast_pointer(value):
    """The issue's case: an unparseable CODEGEN_DISABLE_MULTICAST must keep multicast off."""
    from codegen.runtime.symm_group import choose_multicast_ptr

    ptr, why = choose_multicast_ptr(0x1000, 0, {"CODEGEN_DISABLE_MULTICAST": value})
    assert ptr == 0 and "CODEGEN_DISABLE_MULTICAST" in why


def test_project_switch_implies_the_others_even_when_multicast_is_allowed():
    from codegen.env import MULTICAST_SAFE_ENV
    from codegen.runtime.symm_env import enforce_no_multicast

    environ = {"CODEGEN_DISABLE_MULTICAST": "1", "NCCL_NVLS_ENABLE": "1"}
    assert enforce_no_multicast(allow_multicast=True, environ=environ) == []
    assert all(environ[name] == safe for name, safe in MULTICAST_SAFE_ENV)
    allowed = {"NCCL_NVLS_ENABLE": "1"}  # without the project's switch: the caller decides
    enforce_no_multicast(allow_multicast=True, environ=allowed)
    assert allowed == {"NCCL_NVLS_ENABLE": "1"}


def test_ar_multicast_needs_the_landing_buffer_mapped_too(monkeypatch):
    """The decode schedule's AR multicast kernel stores through mc_land_ptr: a group whose
    landing buffer has no multicast address must not get the multicast transport."""
    from types import SimpleNamespace

    from codegen.runtime import transport
    from codegen.runtime.transport import choose_transport

    monkeypatch.setattr(transport, "multicast_disabled_by_env", lambda environ=None: None)
    import codegen.runtime.driver as driver
    monkeypatch.setattr(driver, "device_attribute", lambda a, d: 1)
    buf = SimpleNamespace(multicast_ptr=0x1000)
    group = SimpleNamespace(local_ranks=(0,), workspace=lambda r: buf, ar_buffer=lambda r: buf,
                            landing=lambda r: SimpleNamespace(multicast_ptr=0))
    assert choose_transport(group, "ar", None, 0) == "unicast"
    group.landing = lambda r: buf
    assert choose_transport(group, "ar", None, 0) == "multicast"
