"""When the multicast transport may be used (never creates multicast objects itself)."""
from __future__ import annotations

import os
from collections.abc import Mapping

DISABLE_SWITCHES = (
    ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
    ("NCCL_NVLS_ENABLE", "0"),
    ("CODEGEN_DISABLE_MULTICAST", "1"),
)


def multicast_disabled_by_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The switch that disables multicast (e.g. 'NCCL_NVLS_ENABLE=0'), or None."""
    env = os.environ if environ is None else environ
    for name, value in DISABLE_SWITCHES:
        if env.get(name, "").strip().lower() == value:
            return f"{name}={value}"
    try:  # the project's typed switch also accepts true/yes/on
        from codegen import env as codegen_env

        if codegen_env.load(env).disable_multicast:
            return "CODEGEN_DISABLE_MULTICAST"
    except ValueError:
        pass
    return None


def multicast_unavailable_reason(mc_ptrs: list[int], device_index: int | None,
                                 environ: Mapping[str, str] | None = None) -> str | None:
    """Why multicast cannot be used here, or None when it can.

    Order: a missing pointer (no device query needed), a disable switch, then the device's
    CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED.
    """
    if not mc_ptrs or any(p == 0 for p in mc_ptrs):
        return "the group supplies no multicast pointer"
    reason = multicast_disabled_by_env(environ)
    if reason:
        return f"disabled by {reason}"
    from .driver import device_attribute

    if not device_attribute("MULTICAST_SUPPORTED", device_index or 0):
        return f"device {device_index} reports no multicast support"
    return None
