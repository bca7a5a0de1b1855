"""When the multicast transport may be used (never creates multicast objects itself)."""
from __future__ import annotations

from collections.abc import Mapping

from codegen import env as codegen_env


def multicast_disabled_by_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The switch that disables multicast (e.g. 'NCCL_NVLS_ENABLE=0'), or None (env.py's rule)."""
    return codegen_env.multicast_disabled_by(environ)


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


def choose_transport(group, mode: str, requested: str | None, device_index: int | None) -> str:
    """'unicast' | 'multicast' for an rs/ar op on `group`: `requested` when given (multicast only
    where it is available, else InputError), otherwise multicast when available."""
    return transport_choice(group, mode, requested, device_index)[0]


def transport_choice(group, mode: str, requested: str | None,
                     device_index: int | None) -> tuple[str, str | None]:
    """(transport, why multicast is not used or None): :func:`choose_transport` with its reason,
    for the one log line a serving layer writes."""
    from .errors import InputError

    ranks = group.local_ranks
    ptrs = [group.workspace(r).multicast_ptr for r in ranks]
    if mode == "ar":  # the tile schedule's AR buffer and the decode schedule's landing buffer
        ptrs += [group.ar_buffer(r).multicast_ptr for r in ranks]
        ptrs += [group.landing(r).multicast_ptr for r in ranks]
    reason = multicast_unavailable_reason(ptrs, device_index)
    if requested == "multicast" and reason:
        raise InputError(f"transport = 'multicast' is unavailable: {reason}")
    if requested is not None:
        return requested, None if requested == "multicast" else f"transport = {requested!r} requested"
    return ("unicast", reason) if reason else ("multicast", None)
