"""Input checks done before any launch; each failure is an InputError naming argument and value.

Pure tensor-metadata checks: they work on CPU tensors and never touch a GPU. Beyond dtype,
device, shape and layout they refuse what would make a kernel read the wrong memory or return
a silently wrong answer: a freed or shrunk storage (address 0, or a view reaching past its
storage's bytes), a negated view (the neg bit: the kernels read memory as it is; a conj bit
exists only for complex dtypes, which the dtype check refuses) and, with grad mode on, a tensor
that requires grad (the kernels have no autograd).
"""
from __future__ import annotations

import torch

from .errors import InputError
from codegen.contract import K_MULTIPLE

# the per-call fast paths' names, bound once
_Tensor, _bf16, _grad_enabled = torch.Tensor, torch.bfloat16, torch.is_grad_enabled


def _check_bf16_on(name: str, t, device: torch.device) -> None:
    if not isinstance(t, torch.Tensor):
        raise InputError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.layout is not torch.strided:
        raise InputError(f"{name} must be a dense (strided) tensor, got layout {t.layout}; pass "
                         f"{name}.to_dense()")
    if t.dtype != torch.bfloat16:
        raise InputError(f"{name}.dtype must be torch.bfloat16, got {t.dtype}")
    if t.device != device:  # the op's device always has its index (GemmRsAr normalises it)
        raise InputError(f"{name}.device must be {device} (the group's device), got {t.device}")


def _check_memory(name: str, t: torch.Tensor) -> None:
    """The memory checks every launched tensor needs past its layout: a live storage that
    covers the view, no neg bit, and no autograd (see the module docstring). An empty `t`
    (address 0) passes: its shape check names it."""
    if t.numel() == 0:
        return
    if t.data_ptr() == 0:
        raise InputError(f"{name}.data_ptr() is 0: its storage was freed (e.g. "
                         f"untyped_storage().resize_(0)); pass a tensor with memory")
    if not storage_covers(t):
        raise InputError(f"{name} reaches byte {_view_end(t)} of its storage, which holds only "
                         f"{t.untyped_storage().nbytes()} bytes (resized after the view was "
                         f"made?); pass a tensor whose storage covers it, e.g. a fresh one")
    if t.is_neg():
        raise InputError(f"{name} is a negated view (is_neg(), e.g. torch._neg_view): the kernels "
                         f"read its memory as it is, without the sign; pass {name}.resolve_neg()")
    check_no_grad(name, t)


def check_no_grad(name: str, t: torch.Tensor) -> None:
    if t.requires_grad and _grad_enabled():
        raise InputError(f"{name} requires grad, but the fused kernels are inference only (no "
                         f"autograd: the result would not be differentiable); call it under "
                         f"torch.no_grad() or torch.inference_mode(), or pass {name}.detach()")


def _view_end(t: torch.Tensor) -> int:
    """The byte past the last element the view `t` addresses, counted from its storage's start."""
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride())) + 1
    return (t.storage_offset() + (last if t.numel() else 0)) * t.element_size()


def storage_covers(t: torch.Tensor) -> bool:
    """Whether `t`'s storage holds every byte its view addresses (False after a resize_ of
    the storage below the view, which torch allows)."""
    return _view_end(t) <= t.untyped_storage().nbytes()


def row_stride(t: torch.Tensor) -> int:
    """The row stride (elements) a TMA descriptor of the row-major matrix `t` gets: its own, or
    K for a single row (whose stride torch may report as anything)."""
    return t.stride(0) if t.shape[0] > 1 else t.shape[1]


def check_matrix(name: str, t, device: torch.device, rows: int | None, K: int) -> None:
    """bf16, on `device`, 2-D [rows, K], row-major with unit column stride and a row stride >= K
    that is a multiple of K_MULTIPLE (16-byte rows: a contiguous tensor, or a column slice or
    padded view of a wider one), 16-byte aligned, K % 8 == 0."""
    _check_bf16_on(name, t, device)
    if t.dim() != 2:
        raise InputError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
    k = t.shape[1]
    if k % K_MULTIPLE:
        raise InputError(f"{name}.shape[1] (K) = {k} must be a multiple of {K_MULTIPLE}")
    if k != K:
        raise InputError(f"{name}.shape[1] (K) = {k} must equal the op's K = {K}")
    if rows is not None and t.shape[0] != rows:
        raise InputError(f"{name}.shape must be ({rows}, {K}), got {tuple(t.shape)}")
    if not _rows_ok(t):
        raise InputError(f"{name} must be row-major with unit column stride and a row stride >= "
                         f"K that is a multiple of {K_MULTIPLE} (16-byte rows, as TMA needs), "
                         f"got strides {tuple(t.stride())} for shape {tuple(t.shape)}; pass "
                         f"{name}.contiguous()")
    if t.data_ptr() % 16:
        raise InputError(f"{name}.data_ptr() = {t.data_ptr():#x} must be 16-byte aligned "
                         f"(TMA); pass a fresh or .clone()d tensor")
    _check_memory(name, t)


def _rows_ok(t: torch.Tensor) -> bool:
    """The 2-D `t`'s rows as TMA reads them: unit column stride, a row stride >= its width that
    is a multiple of K_MULTIPLE (one row: any stride)."""
    shape, stride = t.shape, t.stride()
    return stride[1] == 1 and (shape[0] <= 1 or (stride[0] >= shape[1]
                                                 and stride[0] % K_MULTIPLE == 0))


def tma_rows_ok(t: torch.Tensor) -> bool:
    """Whether the 2-D `t`'s layout is one a TMA descriptor can read as it is: its rows
    (_rows_ok) and a 16-byte aligned address."""
    return _rows_ok(t) and t.data_ptr() % 16 == 0


def matrix_ok(t, device: torch.device, rows: int | None, K: int) -> bool:
    """True exactly when :func:`check_matrix` would pass, for `K` a multiple of K_MULTIPLE (the op's
    K always is) and grad mode off or `t` not requiring grad (the caller checks that: one
    grad-mode query for all its tensors): the per-call fast path; on False, call check_matrix
    for the error."""
    if not isinstance(t, _Tensor) or t.dtype is not _bf16 or t.device != device:
        return False
    shape = t.shape
    if len(shape) != 2 or shape[1] != K or (rows is not None and shape[0] != rows):
        return False
    stride = t.stride()     # tma_rows_ok inlined (shape[1] == K): the per-call fast path
    if not (stride[1] == 1 and (shape[0] <= 1 or (stride[0] >= K and stride[0] % K_MULTIPLE == 0))):
        return False
    ptr = t.data_ptr()
    if not ptr or ptr % 16:
        return not ptr and not shape[0]   # no rows (address 0): check_m names it
    # storage_covers inlined for a bf16 [rows, K] view with unit column stride (one row: the
    # product is 0, whatever its stride)
    return ((t.storage_offset() + (shape[0] - 1) * stride[0] + K) * 2
            <= t.untyped_storage().nbytes() and not t.is_neg())


def check_rank(rank, local_ranks: tuple[int, ...], tp: int) -> None:
    if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < tp:
        raise InputError(f"rank = {rank!r} must be an int in [0, {tp})")
    if rank not in local_ranks:
        raise InputError(f"rank = {rank} is not driven by this process (local ranks {local_ranks})")


def check_m(M: int, max_M: int) -> None:
    if not 1 <= M <= max_M:
        raise InputError(f"x.shape[0] (M) = {M} must be in [1, max_M = {max_M}]")


def _span(t: torch.Tensor) -> tuple[int, int]:
    """[first, last + 1) byte of the memory `t` addresses (a strided view: its rows and the gaps
    between them)."""
    start = t.data_ptr()
    if t.numel() == 0:
        return start, start + t.element_size()
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))
    return start, start + (last + 1) * t.element_size()


def check_no_overlap(name: str, out: torch.Tensor, **inputs) -> None:
    """`out` must share no memory with any input: the kernel reads the inputs while it writes."""
    o0, o1 = _span(out)
    for other, t in inputs.items():
        if isinstance(t, torch.Tensor) and t.device == out.device:
            t0, t1 = _span(t)
            if o0 < t1 and t0 < o1:
                raise InputError(f"{name} overlaps {other} in memory ({name} at {o0:#x}, "
                                 f"{other} at {t0:#x}); pass a separate output tensor")


def out_ok(out, shape: tuple[int, int], device: torch.device) -> bool:
    """True exactly when :func:`check_out` would pass (grad mode off or `out` not requiring
    grad aside, which check_out adds): its per-call fast path."""
    if not isinstance(out, _Tensor) or out.dtype is not _bf16 or out.device != device:
        return False
    if out.shape != shape or not out.is_contiguous():
        return False
    ptr = out.data_ptr()
    if not ptr or ptr % 16:
        return False    # (an output is never empty: N >= 1 and M >= 1)
    # storage_covers inlined for a contiguous bf16 tensor
    return ((out.storage_offset() + out.numel()) * 2 <= out.untyped_storage().nbytes()
            and not out.is_neg())


def check_out(out, shape: tuple[int, int], device: torch.device, name: str = "out") -> None:
    try:
        if out_ok(out, shape, device):
            if out.requires_grad:
                check_no_grad(name, out)
            return
    except RuntimeError:  # a tensor without strides or storage (sparse CSR): named below
        pass
    _check_bf16_on(name, out, device)
    if tuple(out.shape) != tuple(shape):
        raise InputError(f"{name}.shape must be {tuple(shape)}, got {tuple(out.shape)}")
    if not out.is_contiguous():
        raise InputError(f"{name} must be contiguous, got strides {tuple(out.stride())}")
    if out.data_ptr() % 16:
        raise InputError(f"{name}.data_ptr() = {out.data_ptr():#x} must be 16-byte aligned")
    _check_memory(name, out)


def check_rank_outputs(out, shape: tuple[int, int], device: torch.device, xs, weights) -> None:
    """The outputs of a run over every local rank: each a valid output, and none overlapping
    any rank's input or another rank's output (every rank's kernel runs at once)."""
    named = {f"xs[{i}]": x for i, x in enumerate(xs)}
    named.update({f"weights[{i}]": w for i, w in enumerate(weights)})
    for i, o in enumerate(out):
        check_out(o, shape, device, f"out[{i}]")
        check_no_overlap(f"out[{i}]", o, **named,
                         **{f"out[{j}]": p for j, p in enumerate(out) if j != i})
