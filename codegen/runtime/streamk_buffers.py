"""The device buffers of the streamk kernels (mode none): one set per stream, one error record
per device, shared by every op.

A streamk kernel (contract "streamk") sums a tile whose k-tiles two CTAs computed through an
f32 workspace in global memory (one BM x BN partial tile per CTA) and a flag per CTA, and
reports a wait past its bound in an error record (pinned host memory, read without a device
copy). Every kernel of one stream runs after the one before it, so one set per stream serves
every op and layer launching there (a per-op set would cost ~17 MB per op: 132 CTAs x 128 x
256 f32), as cuBLAS keeps a workspace per stream.

Two streamk calls running at once on one set would race on it (a partial summed into the
wrong tile). A set per stream keeps calls on different streams apart, eager or captured: the
branches of a CUDA graph captured on forked streams (e.g. a shared expert on a side stream)
run at once on their own sets. Launches captured into a graph take the capture sets of their
streams, never an eager call's: torch captures on a stream of its pool, which a later
`torch.cuda.Stream()` may hand to eager work, and a graph replays on whatever stream it is
replayed on, so an eager call and a replay never share a set (a graph's kernels keep the capture
set of the stream they were captured on: never replay two graphs captured on one stream at
once). Past SETS_MAX streams of a kind (eager / captured) on a device, streams share that
kind's sets (by handle); an eager call on a shared set's other stream first waits for that
set's last call (stream_order.StreamOrder, as a group's calls do; the wait is skipped during
capture), and the set's lock keeps one thread's wait and launch together.

The flags clear themselves (the CTA that sums a partial zeroes its flag), so they stay valid
across calls and graph replays. After a time-out they may not be: `reset()` zeroes every set's
flags with the error record (GemmRsAr.reset_errors).

A set is made at its stream's first streamk launch, which may come inside a CUDA-graph capture
(a capture stream is new to the op): there torch would take its memory from the graph's pool
(freed with the graph while the set lives on) and record the flags' zeroing in the graph
instead of running it, and cudaMalloc is not allowed in a global-mode capture. So every set and
error record is allocated and zeroed on a dedicated stream no capture involves, with this
thread's capture mode relaxed for the moment (`_outside_capture`).
"""
from __future__ import annotations

import contextlib
import threading

import torch

from codegen import contract

from .stream_order import StreamOrder

#: Sets per device before streams share them (17 MB each on an H200).
SETS_MAX = 8


#: The dedicated stream of each device on which sets are allocated (group._dedicated_stream).
_ALLOC_STREAMS: dict[int, torch.cuda.Stream] = {}


@contextlib.contextmanager
def _outside_capture(device: torch.device):
    """Allocate (torch's regular pool) and zero tensors inside the block even while this thread
    captures a CUDA graph: the block runs on the device's dedicated stream with this thread's
    capture mode relaxed (driver.capture_relaxed), and that stream is synchronized
    before the block's tensors are used elsewhere."""
    from .driver import capture_relaxed
    from .group import _dedicated_stream

    # (the device first: _dedicated_stream makes its context current, which must not outlive
    # the block on a caller whose current device is another)
    with torch.cuda.device(device), capture_relaxed():
        side = _ALLOC_STREAMS.get(device.index)
        if side is None:
            side = _ALLOC_STREAMS[device.index] = _dedicated_stream(device.index)
        with torch.cuda.stream(side):
            yield
        side.synchronize()


class StreamKSet:
    """Workspace and flags of the streamk kernels of one stream (or of the streams sharing it
    past SETS_MAX), with the StreamOrder and lock of the streams that share it."""

    __slots__ = ("workspace", "flags", "ws_ptr", "flag_ptr", "order", "lock")

    def __init__(self, device: torch.device, ctas: int):
        bn = max(contract.STREAMK_BNS)
        with _outside_capture(device):
            self.workspace = torch.empty(contract.streamk_workspace_bytes(ctas, bn) // 4,
                                         dtype=torch.float32, device=device)
            self.flags = torch.zeros(contract.streamk_flag_words(ctas), dtype=torch.int64,
                                     device=device)
        self.ws_ptr = self.workspace.data_ptr()
        self.flag_ptr = self.flags.data_ptr()
        self.order = StreamOrder()
        self.lock = threading.Lock()


class SetsByStream:
    """The sets of one device by stream: a new one (`make()`) for each of the first SETS_MAX
    streams, then a shared one chosen by handle (not remembered: a churn of new streams must not
    grow the map)."""

    def __init__(self, make):
        self._make = make
        self.sets: list = []
        self._by_stream: dict[int, object] = {}
        self._lock = threading.Lock()

    def has_own(self, handle: int) -> bool:
        """Whether the stream `handle` has a set of its own already."""
        return handle in self._by_stream

    def get(self, handle: int):
        st = self._by_stream.get(handle)
        if st is not None:
            return st
        with self._lock:
            st = self._by_stream.get(handle)
            if st is None:
                if len(self.sets) < SETS_MAX:
                    st = self._make()
                    self.sets.append(st)
                    self._by_stream[handle] = st
                else:
                    st = self.sets[(handle >> 4) % SETS_MAX]
        return st


class StreamKBuffers:
    """The streamk sets of one device (by stream) and its error record."""

    def __init__(self, device: torch.device):
        from .group import _pinned_device_ptr

        self.device = device
        self.ctas = torch.cuda.get_device_properties(device).multi_processor_count
        with _outside_capture(device):
            self.error = torch.zeros(contract.ERROR_RECORD_WORDS, dtype=torch.int32,
                                     pin_memory=True)
            self.error_ptr = _pinned_device_ptr(self.error, device.index)
        make = lambda: StreamKSet(device, self.ctas)  # noqa: E731
        #: The sets of eager launches and of launches captured into a graph, by stream handle
        #: (a cudaStream_t as int), each made at its stream's first streamk launch of that kind.
        self.eager, self.captured = SetsByStream(make), SetsByStream(make)

    @property
    def sets(self) -> list:
        """Every set of the device, eager and captured."""
        return self.eager.sets + self.captured.sets

    def for_launch(self, handle: int):
        """The set of a launch on the current stream `handle`: its capture set while the
        stream captures a CUDA graph, else its eager set."""
        if torch.cuda.is_current_stream_capturing():
            return self.captured.get(handle)
        return self.eager.get(handle)

    def values(self, timeout_ns: int) -> dict:
        """The streamk kernels' own parameters (contract.SCALAR_PARAMS); the workspace and flag
        pointers are the launch's stream's set, patched in per launch
        (call_plan.CallPlan.launch), so a plan holds none."""
        return {"sk_ws_ptr": 0, "sk_flag_ptr": 0, "err_ptr": self.error_ptr,
                "timeout_ns": timeout_ns}

    def fits(self, grid: int) -> bool:
        """Whether a grid of `grid` CTAs has its partial tiles and flags here."""
        return grid <= self.ctas

    def reset(self) -> None:
        """Zero the error record and every set's flags (after the device's work is done)."""
        torch.cuda.synchronize(self.device)
        for st in self.sets:
            st.flags.zero_()
        torch.cuda.synchronize(self.device)
        self.error.zero_()

    def raised_flags(self) -> int:
        """Flags raised in any set (0 between calls once every partial was summed; tests)."""
        torch.cuda.synchronize(self.device)
        return sum(int(st.flags[contract.FLAG_TILES:].count_nonzero()) for st in self.sets)


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
