"""The device buffers of the streamk kernels (mode none): one set per device, shared by every op.

A streamk kernel (contract "streamk") sums a tile whose k-tiles two CTAs computed through an
f32 workspace in global memory (one BM x BN partial tile per CTA) and a flag per CTA, and
reports a wait past its bound in an error record (pinned host memory, read without a device
copy). Every kernel of one stream runs after the one before it, so one set per device serves
every op and layer there: a per-op set would cost ~17 MB per op (132 CTAs x 128 x 256 f32).

Two streamk calls running at once on one device would race on the set, like two calls of one
group on its buffers. The calls on one stream are ordered by the stream; a call on another
stream first waits for the last one (stream_order.StreamOrder, the group's rule, with the same
exceptions: CUDA-graph capture and replays are not seen), and a lock keeps one thread's wait and
launch together.

The flags clear themselves (the CTA that sums a partial zeroes its flag), so they stay valid
across calls and graph replays. After a time-out they may not be: `reset()` zeroes them with the
error record (GemmRsAr.reset_errors).
"""
from __future__ import annotations

import threading

import torch

from codegen import contract

from .stream_order import StreamOrder


class StreamKBuffers:
    """Workspace, flags and error record of the streamk kernels on one device."""

    def __init__(self, device: torch.device):
        from .group import _pinned_device_ptr

        self.device = device
        self.ctas = torch.cuda.get_device_properties(device).multi_processor_count
        bn = max(contract.STREAMK_BNS)
        self.workspace = torch.empty(contract.streamk_workspace_bytes(self.ctas, bn) // 4,
                                     dtype=torch.float32, device=device)
        self.flags = torch.zeros(contract.streamk_flag_words(self.ctas), dtype=torch.int64,
                                 device=device)
        self.error = torch.zeros(contract.ERROR_RECORD_WORDS, dtype=torch.int32, pin_memory=True)
        self.error_ptr = _pinned_device_ptr(self.error, device.index)
        self.order = StreamOrder()
        self.lock = threading.Lock()

    def values(self, timeout_ns: int) -> dict:
        """The streamk kernels' own parameters (contract.SCALAR_PARAMS)."""
        return {"sk_ws_ptr": self.workspace.data_ptr(), "sk_flag_ptr": self.flags.data_ptr(),
                "err_ptr": self.error_ptr, "timeout_ns": timeout_ns}

    def fits(self, grid: int) -> bool:
        """Whether a grid of `grid` CTAs has its partial tiles and flags here."""
        return grid <= self.ctas

    def reset(self) -> None:
        """Zero the error record and the flags (after the device's work is done)."""
        torch.cuda.synchronize(self.device)
        self.flags.zero_()
        torch.cuda.synchronize(self.device)
        self.error.zero_()


class NoBuffers:
    """The stand-in of an op on device 'cpu' (it validates, dispatches and packs parameters,
    never launches): null buffer addresses."""

    ctas = 1 << 30

    def values(self, timeout_ns: int) -> dict:
        return {"sk_ws_ptr": 0, "sk_flag_ptr": 0, "err_ptr": 0, "timeout_ns": timeout_ns}

    def fits(self, grid: int) -> bool:
        return True


_BY_DEVICE: dict[int, StreamKBuffers] = {}
_CREATE = threading.Lock()


def of_device(device: torch.device) -> StreamKBuffers | NoBuffers:
    """The buffers of `device` (created at the first streamk launch there; a 'cpu' device's
    op never launches: NoBuffers)."""
    if device.type != "cuda":
        return NoBuffers()
    bufs = _BY_DEVICE.get(device.index)
    if bufs is None:
        with _CREATE:
            bufs = _BY_DEVICE.get(device.index)
            if bufs is None:
                bufs = _BY_DEVICE[device.index] = StreamKBuffers(device)
    return bufs


def existing(device: torch.device | None) -> StreamKBuffers | None:
    """The buffers of `device` if a streamk launch created them, else None."""
    return None if device is None or device.type != "cuda" else _BY_DEVICE.get(device.index)
