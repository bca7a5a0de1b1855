"""Error health of a group's ranks: read the kernels' error records, wait, and reset.

Each rank's error record is pinned host memory the kernel writes through UVA (contract
ERROR_RECORD_FIELDS), so reading it needs no device copy; a stream sync first makes it final.
"""
from __future__ import annotations

import numpy as np
import torch

from .errors import KernelTimeoutError


class RankHealth:
    """The error records and streams of the local ranks of `group` (None: no group, mode none,
    whose streamk kernels share one error record per device: `streamk_of()` returns those
    buffers, streamk_buffers.StreamKBuffers, or None before the device's first streamk call)."""

    def __init__(self, group, device_of, streamk_of=None):
        self.group = group
        self._device_of = device_of          # () -> torch.device, resolved lazily
        self._streamk_of = streamk_of
        self._views: dict[int, np.ndarray] = {}
        self.last_variant: dict[int, str] = {}

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
