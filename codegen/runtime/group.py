"""Groups of ranks: who the peers are and where their buffers live.

A Group tells the op, per rank it drives, the rank's symmetric buffers (workspace, flags, AR
buffer: local tensor, device table of every rank's pointer, optional multicast pointer), the
host-mapped error record, the stream to launch on and the SM budget.

`VirtualGroup` puts tp ranks on one GPU (tests, benchmarks). A group over real GPUs (torch
symmetric memory: `rendezvous(...).buffer_ptrs`, `.multicast_ptr`) implements the same
interface with `local_ranks == (rank,)` and `stream(rank) is None` (the caller's stream).
"""
from __future__ import annotations

import abc
import threading
from dataclasses import dataclass

import torch

from codegen import contract

from .push_table import push_table
from .shared_instance import SharedInstance


def check_group_shape(max_M: int, N: int, tp: int, mode: str, who: str = "") -> None:
    """ValueError unless a group's buffers can be sized for (max_M, N, tp, mode): an rs / ar
    mode, tp dividing 128, N a positive multiple of contract.N_MULTIPLE, max_M >= 1."""
    if mode not in contract.COLLECTIVE_MODES:
        raise ValueError(f"{who}mode must be 'rs' or 'ar', got {mode!r}")
    for name, value in (("tp", tp), ("N", N), ("max_M", max_M)):
        # (a float or numpy value passes the range checks below, then sizes the buffers and
        # reaches GemmRsAr's int checks only after the allocation)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{who}{name}={value!r}: must be an int, not a {type(value).__name__}")
    if tp < 1 or 128 % tp:
        raise ValueError(f"tp={tp}: must divide 128")
    if N < contract.N_MULTIPLE or N % contract.N_MULTIPLE:
        raise ValueError(f"N={N}: must be a positive multiple of {contract.N_MULTIPLE}")
    if max_M < 1:
        raise ValueError(f"max_M={max_M}: must be >= 1")


@dataclass(frozen=True)
class SymmetricBuffer:
    """One rank's view of a buffer every rank has: its own tensor and everyone's pointers.

    `peer_ptrs` is an int64 tensor [tp] on the device holding each rank's address (u64 bits,
    index = rank); `multicast_ptr` is 0 when there is no multicast mapping.
    """

    local: torch.Tensor
    peer_ptrs: torch.Tensor
    multicast_ptr: int = 0

    @property
    def ptr(self) -> int:
        return self.local.data_ptr()


class Group(SharedInstance, abc.ABC):
    """The ranks one op instance serves, with their buffers (see module docstring).

    Attributes every group sets: `tp`, `device` (torch.device with an index), `mode`
    ('rs' | 'ar'), `max_M`, `N`, `sm_budget` (CTAs per rank's persistent grid). Every op on
    the group holds its :func:`launch_lock` across a launch section.
    """

    tp: int
    device: torch.device
    mode: str
    max_M: int
    N: int
    sm_budget: int

    @property
    @abc.abstractmethod
    def local_ranks(self) -> tuple[int, ...]:
        """Ranks this process launches (all of them for a virtual group)."""

    @abc.abstractmethod
    def workspace(self, rank: int) -> SymmetricBuffer:
        """Partial workspace [2, contract.workspace_rows(rows_pad, tp), N] bf16."""

    @abc.abstractmethod
    def flags(self, rank: int) -> SymmetricBuffer:
        """Flag area, int64[contract.flag_words(max_M, N, tp)] (epochs), zeroed once at allocation."""

    @abc.abstractmethod
    def ar_buffer(self, rank: int) -> SymmetricBuffer | None:
        """AR landing buffer [2, rows_pad, N] bf16 (None unless mode == 'ar')."""

    @abc.abstractmethod
    def landing(self, rank: int) -> SymmetricBuffer:
        """Decode landing buffer [2, tp, land_rows, N] bf16: slot [parity][src] holds src's
        pushed partial rows (the swapab schedule). Allocated armed: every element -0.0, the
        Lamport sentinel (kernels re-arm what they consume)."""

    @abc.abstractmethod
    def push_tmaps(self, rank: int) -> torch.Tensor:
        """Device uint8 [len(PUSH_BOXES) * 2 * tp * TMA_DESC_BYTES]: the TMA descriptors of the
        owners' workspace slots `rank` stores its partial rows into (push_table.py;
        `push_tmap_ptr`)."""

    @abc.abstractmethod
    def error_record(self, rank: int) -> torch.Tensor:
        """Pinned host i32[8] error record of `rank` (KERNEL-CONTRACT.md "Error record")."""

    @abc.abstractmethod
    def error_record_device_ptr(self, rank: int) -> int:
        """The device address of `error_record(rank)` (err_ptr)."""

    @abc.abstractmethod
    def stream(self, rank: int) -> torch.cuda.Stream | None:
        """Stream to launch `rank` on; None means the caller's current stream."""

    # ---- copies: a group is shared, never copied (SharedInstance) --------------------------
    # (before: deepcopy raised "cannot pickle '_thread.lock'")
    def pickle_refusal(self) -> str:
        return (f"a {type(self).__name__} cannot be pickled: its buffers are mapped by its peers "
                f"(or its virtual ranks) in this process; build the group in the process that "
                f"uses it")

    @property
    def rows_pad(self) -> int:
        return contract.rows_pad(self.max_M)

    @property
    def workspace_rows(self) -> int:
        return contract.workspace_rows(self.rows_pad, self.tp)

    @property
    def m_tiles_max(self) -> int:
        return contract.m_tiles_max(self.max_M)

    @property
    def land_rows(self) -> int:
        return contract.land_rows(self.max_M)


#: Guards the lazy creation in launch_lock (taken once per group, never on the per-call path).
_LOCK_INIT = threading.Lock()
#: Locks of groups without an instance __dict__ (a user's Group with __slots__), by id.
_LOCKS_BY_ID: dict[int, threading.Lock] = {}


def launch_lock(group) -> threading.Lock:
    """The lock of `group` (one per group object, `group._launch_lock`; created on first use)
    that every op on it holds across a launch section: run_all's launches over every local rank,
    or one call's stream ordering and launch. The group's buffers and rank streams are shared
    by all its calls, so two threads' launches must not interleave (one rank's stream would
    run thread A's call first, another rank's thread B's: the ranks wait on each other's flags
    and time out, or sum the wrong partials)."""
    lock = getattr(group, "_launch_lock", None)
    if lock is None:
        with _LOCK_INIT:
            lock = getattr(group, "_launch_lock", None)
            if lock is None:
                lock = threading.Lock()
                try:
                    group._launch_lock = lock
                except AttributeError:   # __slots__: keep it here (a reused id shares a lock)
                    lock = _LOCKS_BY_ID.setdefault(id(group), lock)
    return lock


def _pinned_device_ptr(t: torch.Tensor, device_index: int) -> int:
    """Device address of pinned host memory (equal to the host address under UVA)."""
    from .driver import call, ensure_context

    ensure_context(device_index)
    return int(call("cuMemHostGetDevicePointer", t.data_ptr(), 0))


def _dedicated_stream(device_index: int) -> torch.cuda.Stream:
    """A new non-blocking stream that torch's stream pool will never hand to anyone else.

    torch.cuda.Stream() returns pool streams round-robin (32 per device), so a caller's stream
    (a side stream, graph capture's stream) can be the very stream of a rank; that rank's kernel
    then queues behind the caller's work or vice versa and the co-scheduled ranks time out.
    The stream lives as long as the process (streams are cheap; destroying one under a
    possibly pending capture is not).
    """
    from .driver import call, cuda, ensure_context

    ensure_context(device_index)
    handle = call("cuStreamCreate", cuda.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
    return torch.cuda.ExternalStream(int(handle), device=torch.device("cuda", device_index))


class VirtualGroup(Group):
    """`tp` virtual ranks on one GPU, each with its own buffers and non-blocking stream.

    `sm_budget = SMs // tp` so every rank's persistent grid is resident at the same time
    (the ranks spin on each other's flags). Allocates at construction; nothing is reset later
    except by :meth:`reset_state`.

    Co-residency also needs every rank stream to be its own: dedicated streams, never torch's
    pool (see _dedicated_stream). The GPU tests and the benchmark also set
    CUDA_DEVICE_MAX_CONNECTIONS=32 so that the rank streams get distinct hardware queues
    (a precaution: a time-out from queue sharing was not observed with the default 8).
    """

    def __init__(self, tp: int, max_M: int, N: int, mode: str, device: int | str | torch.device = 0):
        check_group_shape(max_M, N, tp, mode, "VirtualGroup ")
        dev = torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
        if dev.index is None:
            dev = torch.device("cuda", torch.cuda.current_device())
        self.tp, self.device, self.mode, self.max_M, self.N = tp, dev, mode, max_M, N
        self.sm_budget = torch.cuda.get_device_properties(dev).multi_processor_count // tp
        self._launch_lock = threading.Lock()  # launch_lock(self)
        rp = contract.rows_pad(max_M)
        nf = contract.flag_words(max_M, N, tp)
        with torch.cuda.device(dev):
            wr = contract.workspace_rows(rp, tp)
            self._ws = [torch.zeros(2, wr, N, dtype=torch.bfloat16, device=dev) for _ in range(tp)]
            self._flags = [torch.zeros(nf, dtype=torch.int64, device=dev) for _ in range(tp)]
            self._ar = ([torch.zeros(2, rp, N, dtype=torch.bfloat16, device=dev) for _ in range(tp)]
                        if mode == "ar" else None)
            lr = contract.land_rows(max_M)
            # armed: every landing element holds the Lamport sentinel -0.0 until data lands
            self._land = [torch.full((2, tp, lr, N), -0.0, dtype=torch.bfloat16, device=dev)
                          for _ in range(tp)]
            self._err = [torch.zeros(contract.ERROR_RECORD_WORDS, dtype=torch.int32, pin_memory=True)
                         for _ in range(tp)]
            self._err_dev = [_pinned_device_ptr(e, dev.index) for e in self._err]
            self._streams = [_dedicated_stream(dev.index) for _ in range(tp)]

            def table(ts):
                return torch.tensor([t.data_ptr() for t in ts], dtype=torch.int64, device=dev)

            self._ws_table = table(self._ws)
            self._flag_table = table(self._flags)
            self._ar_table = table(self._ar) if self._ar is not None else None
            self._land_table = table(self._land)
            ws_ptrs = [t.data_ptr() for t in self._ws]
            self._push = [push_table(ws_ptrs, r, rp, N, dev) for r in range(tp)]
        torch.cuda.synchronize(dev)  # the zeroing must land before any kernel reads the flags

    @property
    def local_ranks(self) -> tuple[int, ...]:
        return tuple(range(self.tp))

    def workspace(self, rank: int) -> SymmetricBuffer:
        return SymmetricBuffer(self._ws[rank], self._ws_table)

    def flags(self, rank: int) -> SymmetricBuffer:
        return SymmetricBuffer(self._flags[rank], self._flag_table)

    def ar_buffer(self, rank: int) -> SymmetricBuffer | None:
        if self._ar is None:
            return None
        return SymmetricBuffer(self._ar[rank], self._ar_table)

    def landing(self, rank: int) -> SymmetricBuffer:
        return SymmetricBuffer(self._land[rank], self._land_table)

    def push_tmaps(self, rank: int) -> torch.Tensor:
        return self._push[rank]

    def error_record(self, rank: int) -> torch.Tensor:
        return self._err[rank]

    def error_record_device_ptr(self, rank: int) -> int:
        return self._err_dev[rank]

    def stream(self, rank: int) -> torch.cuda.Stream:
        return self._streams[rank]

    def reset_state(self) -> None:
        """Recovery after a time-out: wait for every rank, then zero flags and error records.

        A timed-out call leaves the ranks' epochs out of step; the protocol never resets flags
        itself, so without this the group is unusable. Not for normal operation.
        """
        for s in self._streams:
            s.synchronize()
        with torch.cuda.device(self.device):
            for f in self._flags:
                f.zero_()
            for land in self._land:  # a timed-out reader may have left slots unarmed
                land.fill_(-0.0)
        torch.cuda.synchronize(self.device)
        for e in self._err:
            e.zero_()
