"""torch.library custom ops over registered GemmRsAr ops, so torch.compile and CUDA graphs see
the fused kernels as single opaque ops:

    codegen::gemm_ar(Tensor x, Tensor weight, int handle) -> Tensor   # [M, N], the all-reduced sum
    codegen::gemm_rs(Tensor x, Tensor weight, int handle) -> Tensor   # [ceil(M/tp), N], this rank's rows
    codegen::gemm(Tensor x, Tensor weight, int handle) -> Tensor      # [M, N], plain GEMM (mode none)

`handle` indexes a process-wide registry of (op, rank): :func:`register` once, pass the int on
every call (torch.compile bakes it into the graph as a constant).

- Real impl: ``op(rank, x, weight)``. A SymmMemGroup op (one process per GPU) and a mode-none
  op launch on the current stream, so they are capturable in a CUDA graph. An op whose group
  drives several ranks on their own streams (VirtualGroup) cannot be one custom-op call:
  registering it is an InputError. An `x` whose layout TMA cannot read as it is (a column
  stride other than 1, a row stride below K or off the 16 bytes, an address off the 16 bytes:
  validate.tma_rows_ok) is copied first; a column slice of a wider tensor is not.
- Fake impl: an empty bf16 tensor of ``op.out_shape(M)`` on x's device; no GPU work.
- No autograd formula: inference only (a backward through these ops raises).

The registry also takes stand-ins (anything with `mode`, `out_shape(M)` and
``__call__(rank, x, weight)``), e.g. a torch.mm reference on CPU in the tests.
"""
from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import torch

from .errors import InputError
from .validate import tma_rows_ok

#: custom op name (without the "codegen::" namespace) of each mode
OP_NAMES = {"ar": "gemm_ar", "rs": "gemm_rs", "none": "gemm"}


@runtime_checkable
class RegistrableOp(Protocol):
    """What the registry needs of an op: GemmRsAr, or a stand-in with the same three members."""

    mode: str

    def out_shape(self, M: int) -> tuple[int, int]: ...

    def __call__(self, rank: int, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor: ...


@dataclass(frozen=True)
class Registered:
    op: RegistrableOp
    rank: int

    @property
    def mode(self) -> str:
        return self.op.mode


_lock = threading.Lock()
_entries: dict[int, Registered] = {}
_handles: dict[tuple[int, int], int] = {}  # (id(op), rank) -> handle; the entry keeps op alive
_next_handle = itertools.count(1)  # never reused: a compiled graph's stale handle stays unknown


def register(op: RegistrableOp, rank: int | None = None) -> int:
    """Register (op, rank) once and return its handle (the same handle for the same pair).

    `rank` defaults to the op's only local rank. The op must run one rank per call on the
    current stream: mode none, or a group with exactly one local rank whose stream is the
    caller's (SymmMemGroup). The registry keeps the op alive until :func:`unregister`.
    """
    if not isinstance(op, RegistrableOp):
        raise InputError(f"{type(op).__name__} is not an op: it needs `mode`, `out_shape(M)` "
                         f"and `__call__(rank, x, weight)` (e.g. a GemmRsAr)")
    if getattr(op, "mode", None) not in OP_NAMES:
        raise InputError(f"op.mode = {op.mode!r} must be one of {tuple(OP_NAMES)}")
    local = tuple(getattr(op, "local_ranks", (0,) if rank is None else (rank,)))
    if rank is None:
        if len(local) != 1:
            raise InputError(f"the op drives ranks {local}: pass the rank to register")
        rank = local[0]
    if rank not in local:
        raise InputError(f"rank = {rank!r} is not one of the op's local ranks {local}")
    _check_one_rank_on_current_stream(op, rank)
    with _lock:
        key = (id(op), rank)
        if key in _handles:
            return _handles[key]
        handle = next(_next_handle)
        _entries[handle] = Registered(op, rank)
        _handles[key] = handle
        return handle


def _check_one_rank_on_current_stream(op, rank: int) -> None:
    group = getattr(op, "group", None)
    if op.mode == "none" or group is None:
        return  # a plain GEMM (or a stand-in) runs on the caller's stream
    if len(group.local_ranks) != 1 or group.stream(rank) is not None:
        raise InputError(
            f"a custom-op call runs one rank on the current stream, but the op's "
            f"{type(group).__name__} drives ranks {tuple(group.local_ranks)} on their own "
            f"streams (all of them must launch together): call op.run_all(xs, weights) "
            f"directly, or register a SymmMemGroup op (one process per GPU) or a mode 'none' op")


def unregister(handle: int) -> None:
    """Drop a handle (its op may then be freed); unknown handles are ignored."""
    with _lock:
        entry = _entries.pop(handle, None)
        if entry is not None:
            _handles.pop((id(entry.op), entry.rank), None)


def lookup(handle: int, mode: str | None = None) -> Registered:
    """The registered (op, rank) of `handle`; InputError if unknown or of another mode."""
    entry = _entries.get(handle)
    if entry is None:
        raise InputError(f"handle {handle!r} is not registered (codegen.runtime.torch_ops."
                         f"register(op) returns one; was it unregistered?)")
    if mode is not None and entry.mode != mode:
        raise InputError(f"handle {handle} is a mode {entry.mode!r} op: call "
                         f"torch.ops.codegen.{OP_NAMES[entry.mode]}, not "
                         f"torch.ops.codegen.{OP_NAMES[mode]}")
    return entry


def run(handle: int, x: torch.Tensor, weight: torch.Tensor, mode: str | None = None) -> torch.Tensor:
    """The real impl: the registered op on (x, weight), without the dispatcher (eager callers
    may use it directly; it is exactly what the custom ops run)."""
    entry = lookup(handle, mode)
    try:
        copy = x.dim() == 2 and not tma_rows_ok(x)
    except (AttributeError, RuntimeError):  # not a tensor, or one without strides (sparse)
        copy = True                         # named below
    if copy:
        if not isinstance(x, torch.Tensor) or x.layout is not torch.strided:
            what = type(x).__name__ if not isinstance(x, torch.Tensor) else f"layout {x.layout}"
            raise InputError(f"x must be a dense (strided) torch.Tensor [M, K], got {what}")
        x = x.clone(memory_format=torch.contiguous_format)  # a fresh, aligned allocation
    return entry.op(entry.rank, x, weight)


def _fake(handle: int, x: torch.Tensor, mode: str) -> torch.Tensor:
    if isinstance(handle, torch.SymInt):
        # a handle passed as a compiled function's argument turns symbolic at its second value
        # (dynamo's automatic dynamic ints); each handle is its own op: specialise (a guard)
        handle = int(handle)
    entry = lookup(handle, mode)
    if x.dim() != 2:
        raise InputError(f"x must be 2-D [M, K], got shape {tuple(x.shape)}")
    return x.new_empty(entry.op.out_shape(x.shape[0]), dtype=torch.bfloat16)


def _define(mode: str):
    name = f"codegen::{OP_NAMES[mode]}"

    def impl(x: torch.Tensor, weight: torch.Tensor, handle: int) -> torch.Tensor:
        return run(handle, x, weight, mode)

    impl.__name__ = OP_NAMES[mode]
    op = torch.library.custom_op(name, mutates_args=())(impl)

    @op.register_fake
    def _(x, weight, handle):
        return _fake(handle, x, mode)

    return op


gemm_ar = _define("ar")
gemm_rs = _define("rs")
gemm = _define("none")

#: mode -> the custom op (callable like torch.ops.codegen.<name>)
CUSTOM_OPS = {"ar": gemm_ar, "rs": gemm_rs, "none": gemm}
