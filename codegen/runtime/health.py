"""Error health of a group's ranks: read the kernels' error records, wait, and reset.

Each rank's error record is pinned host memory the kernel writes through UVA (contract
ERROR_RECORD_FIELDS), so reading it needs no device copy; a stream sync first makes it final.
"""
from __future__ import annotations

import weakref

import numpy as np
import torch

from .errors import KernelTimeoutError

#: Every live op's RankHealth (check_all_errors reads their records).
_LIVE: "weakref.WeakSet[RankHealth]" = weakref.WeakSet()
#: The last variant launched per rank of each group: shared by the group's ops, so an error
#: names the kernel that last ran on that rank, whichever op launched it (by id for a group that
#: cannot be weakly referenced, e.g. one with __slots__).
_LAST_BY_GROUP: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_LAST_BY_ID: dict[int, dict[int, str]] = {}


def _group_last(group) -> dict[int, str]:
    try:
        return _LAST_BY_GROUP.setdefault(group, {})
    except TypeError:
        return _LAST_BY_ID.setdefault(id(group), {})


class RankHealth:
    """The error records and streams of the local ranks of `group` (None: no group, mode none,
    whose streamk kernels share one error record per device: `streamk_of()` returns those
    buffers, streamk_buffers.StreamKBuffers, or None before the device's first streamk call)."""

    def __init__(self, group, device_of, streamk_of=None):
        self.group = group
        self._device_of = device_of          # () -> torch.device, resolved lazily
        self._streamk_of = streamk_of
        self._views: dict[int, np.ndarray] = {}
        self.last_variant: dict[int, str] = _group_last(group) if group is not None else {}
        _LIVE.add(self)

    def _ranks(self):
        return self.group.local_ranks if self.group is not None else ()

    def _view(self, rank: int) -> np.ndarray:
        view = self._views.get(rank)
        if view is None:
            view = self._views[rank] = self.group.error_record(rank).numpy()
        return view

    def check(self) -> None:
        """Raise KernelTimeoutError if any local rank's error record is set (no device sync).

        The error names the first rank with a record; `.others` holds the other ranks'
        errors (a stalled rank makes its peers time out too, so the full set tells which rank
        was missing).
        """
        found = []
        for r in self._ranks():
            view = self._view(r)
            if view[0] != 0:
                found.append(KernelTimeoutError(self.last_variant.get(r, "unknown variant"), r,
                                                [int(v) for v in view]))
        if self.group is None and self._streamk_of is not None:
            sk = self._streamk_of()
            if sk is not None and int(sk.error[0]) != 0:
                found.append(KernelTimeoutError(
                    f"a streamk kernel on {sk.device} (this op's last: "
                    f"{self.last_variant.get(0, 'none')})", 0, [int(v) for v in sk.error]))
        if not found:
            return
        first = found[0]
        first.others = found[1:]
        if first.others:
            first.args = (first.args[0] + "; also: " + "; ".join(
                f"rank {e.rank} waited for peer {e.peer} (tile {e.tile}, code {e.code})"
                for e in first.others),)
        raise first

    def wait(self) -> None:
        """Wait for every local rank's stream (the device when a rank has none)."""
        if self.group is None:
            torch.cuda.synchronize(self._device_of())
            return
        for r in self._ranks():
            s = self.group.stream(r)
            if s is None:
                torch.cuda.synchronize(self._device_of())
            else:
                s.synchronize()

    def reset(self) -> None:
        """Clear every local rank's error record (after waiting for the rank streams)."""
        if self.group is None:
            sk = self._streamk_of() if self._streamk_of is not None else None
            if sk is not None:
                sk.reset()
            return
        self.wait()
        for r in self._ranks():
            self.group.error_record(r).zero_()


def check_all_errors() -> None:
    """Raise KernelTimeoutError if any error record of this process is set: every local rank of
    every group an op was built on, and every device's streamk record. No device sync: one read
    of pinned host memory per record (the kernels write them through UVA; a record written by a
    kernel still running is seen once it lands).

    An op checks its records at each call, but a CUDA-graph replay never calls the op: a server
    that replays graphs must call this (or TPContext.check_errors) itself, e.g. after each
    step's replay or every few steps. After a time-out every later wait of that group or
    streamk set gives up at once (the abort word), so replays return incomplete sums until
    recovery (TPContext.recover / group.reset_state, streamk: reset_errors)."""
    seen = set()
    for health in list(_LIVE):
        if health.group is not None:
            key = id(health.group)
        else:
            sk = health._streamk_of() if health._streamk_of is not None else None
            if sk is None:
                continue
            key = id(sk)
        if key not in seen:
            seen.add(key)
            health.check()
