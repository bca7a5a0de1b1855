"""The fused op over a new SymmMemGroup, or a logged reason to use torch.mm + NCCL instead.

The seed's graceful degradation: every rank agrees on the reason, so all ranks take the same
path. It sits next to the op it builds (the group knows nothing of ops).
"""
from __future__ import annotations

import logging
from collections.abc import Callable

from codegen.spec import SpecError

from .errors import CacheMissError
from .group import Group
from .op import GemmRsAr
from .symm_group import SymmetricMemoryUnavailable, SymmMemGroup

log = logging.getLogger(__name__)


def make_fused_or_fallback(max_M: int, N: int, K: int, mode: str, group=None, *,
                           sm_margin: int = 0, allow_multicast: bool = False,
                           backend: str | None = None, logger: logging.Logger | None = None,
                           group_factory: Callable[..., Group] | None = None, prepare: bool = True,
                           **op_kwargs):
    """A GemmRsAr over a new SymmMemGroup, or None (reason logged) to use torch.mm + NCCL.

    Falls back when symmetric memory is unavailable (SymmetricMemoryUnavailable), no kernel
    variant exists for the configuration (SpecError, e.g. tp=1) or the kernel cache lacks a
    needed variant (CacheMissError, with `prepare`). A multicast safety
    refusal or a usage error is raised, not swallowed. Collective: call it on every rank.
    `group_factory` replaces SymmMemGroup (tests).
    """
    lg = logger or log
    factory = group_factory or SymmMemGroup
    try:
        g = factory(max_M, N, mode, group, sm_margin=sm_margin, allow_multicast=allow_multicast,
                    backend=backend)
        op = GemmRsAr(max_M, N, K, mode, g, **op_kwargs)
        if prepare:
            op.prepare()  # surfaces a cache miss now, not on the first request
    except (SymmetricMemoryUnavailable, CacheMissError, SpecError) as exc:
        op, reason = None, str(exc)
    else:
        reason = None
    reason = agree_on_reason(reason, group)
    if reason is not None:
        lg.warning("fused GEMM+%s unavailable, falling back to torch.mm + NCCL: %s",
                   mode.upper(), reason)
        return None
    return op


def agree_on_reason(reason: str | None, group) -> str | None:
    """Every rank's fallback reason joined (None if no rank has one), so all ranks take the
    same path; without an initialised torch.distributed (tests), this rank's own reason.
    Collective over `group` (default WORLD)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return reason
    pg = group if group is not None else dist.group.WORLD
    reasons: list = [None] * dist.get_world_size(pg)
    dist.all_gather_object(reasons, reason, group=pg)
    bad = [f"rank {r}: {why}" for r, why in enumerate(reasons) if why]
    return "; ".join(bad) if bad else None
