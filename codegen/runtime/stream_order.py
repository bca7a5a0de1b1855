"""Calls of one group on the caller's stream, kept in order when the caller changes streams.

A group whose ranks launch on the caller's current stream (`Group.stream(rank) is None`: the
SymmMemGroup, one rank per process) owns one workspace, flag area and landing buffer per rank,
shared by every op and layer built on it. Two of its calls running at once on one rank would
race on them (a wrong sum, or a wait that times out). The calls on one stream are ordered by
the stream; a call on another stream is not. So the group remembers the stream of its last
call, and a call on a different stream first makes its stream wait for that one (an event
recorded there now: everything enqueued on it so far, the last call included). A caller that
stays on one stream pays one integer comparison per call. Calls from several threads: GemmRsAr
holds the group's lock (group.launch_lock) across before_launch and the launch, so one thread's
wait and launch are never split by another's.

Not covered (KERNEL-CONTRACT / README: never run two calls of one group at once):
- during CUDA-graph capture the wait is skipped (an event from outside the capture cannot be
  waited on inside it; `torch.cuda.graph` synchronizes the device before capturing), and the
  capture's stream becomes the last stream; so is an eager call's wait for a last stream that is
  being captured now (by another thread): an event recorded there would join the eager work to
  the capture and invalidate it;
- a graph replayed on one stream while the group is called eagerly on another is not seen
  (replays do not pass through the op);
- the last stream is waited on by its torch object: a caller that destroys that stream (an
  ExternalStream it owns) before its next call on another stream must synchronize it first.
"""
from __future__ import annotations

from typing import Any, Callable


class StreamOrder:
    """The stream of a group's last call, and the wait a call on another stream needs.

    `current()` returns the torch stream object of the current stream (called only when the
    stream changed), `capturing()` whether the current stream is capturing a CUDA graph; both
    injectable, so the logic is testable without a GPU."""

    __slots__ = ("handle", "stream", "waits", "_current", "_capturing", "_stream_capturing")

    def __init__(self, current: Callable[[], Any] | None = None,
                 capturing: Callable[[], bool] | None = None,
                 stream_capturing: Callable[[int], bool] | None = None):
        self.handle: int | None = None
        self.stream = None
        self.waits = 0  # cross-stream waits inserted so far (tests and diagnostics)
        self._current = current
        self._capturing = capturing
        self._stream_capturing = stream_capturing   # (handle) -> whether it captures now

    def before_launch(self, handle: int) -> None:
        """Order a launch on the stream `handle` (the current stream) after the last call."""
        if handle == self.handle:
            return
        cur = self._current() if self._current is not None else _torch_current()
        if self.stream is not None:
            capturing = (self._capturing() if self._capturing is not None
                         else _torch_capturing())
            if not capturing:
                last_capturing = (self._stream_capturing or _driver_stream_capturing)(
                    self.handle)
                if not last_capturing:
                    cur.wait_stream(self.stream)
                    self.waits += 1
        self.handle, self.stream = handle, cur


def _torch_current():
    import torch

    return torch.cuda.current_stream()


def _driver_stream_capturing(handle: int) -> bool:
    """Whether the stream `handle` is being captured now; True where the driver cannot say
    without implicating a capture (the legacy stream while a blocking stream captures:
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT): no wait is the safe side there."""
    from .driver import stream_capturing
    from .errors import DriverError

    try:
        return stream_capturing(handle)
    except DriverError:
        return True


def _torch_capturing() -> bool:
    import torch

    return torch.cuda.is_current_stream_capturing()


#: Orders of groups without an instance __dict__ (a user's Group with __slots__), by id: a
#: reused id only costs the new group one needless wait.
_BY_ID: dict[int, StreamOrder] = {}


def of_group(group) -> StreamOrder:
    """The StreamOrder of `group` (created on first use; one per group object)."""
    attrs = getattr(group, "__dict__", None)
    if attrs is None:
        return _BY_ID.setdefault(id(group), StreamOrder())
    order = attrs.get("_stream_order")
    if order is None:
        order = attrs["_stream_order"] = StreamOrder()
    return order
