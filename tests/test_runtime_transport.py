"""Multicast policy: env switches and missing pointers decide without touching a device."""
import pytest

from codegen.runtime.transport import multicast_disabled_by_env, multicast_unavailable_reason


@pytest.mark.parametrize("env,reason", [
    ({}, None),
    ({"TORCH_SYMM_MEM_DISABLE_MULTICAST": "1"}, "TORCH_SYMM_MEM_DISABLE_MULTICAST=1"),
    ({"NCCL_NVLS_ENABLE": "0"}, "NCCL_NVLS_ENABLE=0"),
    ({"NCCL_NVLS_ENABLE": "1"}, None),
    ({"CODEGEN_DISABLE_MULTICAST": "1"}, "CODEGEN_DISABLE_MULTICAST=1"),
    ({"CODEGEN_DISABLE_MULTICAST": "yes"}, "CODEGEN_DISABLE_MULTICAST"),
])
def test_env_switches(env, reason):
    assert multicast_disabled_by_env(env) == reason


def test_zero_pointer_needs_no_device():
    assert "no multicast pointer" in multicast_unavailable_reason([0, 0], None, {})
    assert "no multicast pointer" in multicast_unavailable_reason([], None, {})


def test_switch_checked_before_device():
    assert "NCCL_NVLS_ENABLE=0" in multicast_unavailable_reason([1, 2], 0, {"NCCL_NVLS_ENABLE": "0"})
