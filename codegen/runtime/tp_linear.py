"""A drop-in row-parallel linear layer: the fused GEMM + AR / RS kernel where it wins, else
torch.mm + the torch.distributed collective.

    ctx = TPContext(max_M=8192, N=7168, mode="ar")      # collective: every rank, same arguments
    o_proj = RowParallelLinear(o_weight_shard, ctx)      # [7168, 3584] bf16 on this rank's GPU
    down_proj = RowParallelLinear(down_weight_shard, ctx)  # [7168, 9216]: same ctx, same group
    y = o_proj(x)                                        # AR: [M, N]; RS: [ceil(M/tp), N]

One TPContext holds one SymmMemGroup (symmetric buffers sized by max_M and N) shared by every
layer with that (N, mode); each distinct K gets one GemmRsAr, built and prepare()d when the
first layer with that K is constructed (collective too: every rank constructs the same layers
in the same order). Per call the layer takes the fused kernel when the op's `should_run` says
so for M (the tuning table's per-M verdict, else dispatch.default_should_run), 1 <= M <= max_M, and x is a 2-D
bf16 [M, K] tensor on the weight's device; otherwise torch.mm + all_reduce / reduce_scatter
(the traceable functional collectives). Both paths compile with torch.compile(fullgraph=True)
(the fused one through the codegen::gemm_ar / gemm_rs custom ops) and capture in CUDA graphs.

Fallback, decided once and agreed by every rank, logged once per context (and once per K or
layer that cannot use a kernel): CODEGEN_DISABLE_FUSED set -> no group at all; the group
cannot be built (no CUDA, peers cannot map each other) -> torch.mm + NCCL; multicast
unavailable -> unicast (transport.py; on the project's machines always: the disable switches
are set); multicast kernels missing from the cache -> unicast; a K without kernels, ranks whose
per-M fused/unfused verdicts or tuning-table choices differ (a rank taking the fused kernel
while a peer calls NCCL would hang), or a weight the kernel cannot take -> that layer uses
torch.mm + NCCL.

Inputs: x is [..., K] with the weight's dtype on its device; 'ar' flattens leading dims and
returns [..., N], 'rs' takes 2-D x only (its rows are of the flattened tokens). Inference only:
with grad mode on, an x or weight that requires grad is an InputError on both paths.

Concurrency: every fused call of a context uses the same group buffers, so two fused calls of
one context must never be in flight at the same time on different streams (one stream per
context, or order the streams). RS pads M to a multiple of tp with zero rows on both paths.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import torch

from codegen import contract
from codegen import env as codegen_env
from codegen.spec import SpecError

from . import torch_ops
from .errors import CacheMissError, InputError
from .fallback import agree_on_reason
from .op_args import MAX_TIMEOUT_MS, _int_arg, path_arg
from .shared_instance import SharedInstance
from .transport import transport_choice
from .tuning import TuningError

log = logging.getLogger(__name__)

FUSED, UNFUSED = "fused", "unfused"

#: errors that make a K (or the whole context) use torch.mm + NCCL instead of failing
_OP_FALLBACK_ERRORS = (CacheMissError, SpecError, InputError, TuningError)


@dataclass(frozen=True)
class FusedOp:
    """The fused op of one K, registered for the custom ops, and its per-M verdict."""

    op: object          # GemmRsAr (or a test stand-in)
    handle: int         # torch_ops handle of (op, this rank)
    runs: tuple[tuple[int, bool], ...]  # (last M, should_run) runs covering 1..max_M


def should_run_runs(should_run: Callable[[torch.Tensor], bool], max_M: int,
                    K: int) -> tuple[tuple[int, bool], ...]:
    """`should_run(x)` for every M in 1..max_M, as runs (last M of the run, verdict).

    Probed with meta tensors (no device work). The layer's forward walks these few runs, which
    torch.compile traces into guards on M, where calling should_run itself (file reads, a
    table lookup) would break the graph.
    """
    probe = torch.empty((max_M, K), dtype=torch.bfloat16, device="meta")
    runs: list[tuple[int, bool]] = []
    for M in range(1, max_M + 1):
        v = bool(should_run(probe[:M]))
        if runs and runs[-1][1] == v:
            runs[-1] = (M, v)
        else:
            runs.append((M, v))
    return tuple(runs)


class TPContext(SharedInstance):
    """One tensor-parallel group for every RowParallelLinear with this (N, mode).

    Args:
        max_M: largest M a fused call may have (sizes the symmetric buffers); larger calls
            take the unfused path.
        N: output features (every layer's weight shard is [N, K_shard]).
        mode: 'ar' (every rank gets the sum) | 'rs' (each rank its ceil(M/tp) rows of it).
        process_group: the TP group (default WORLD); torch.distributed must be initialised.
        sm_margin, backend: passed to SymmMemGroup; min_m, timeout_ms, cache_dir, manifest:
            passed to every GemmRsAr (min_m overrides should_run's threshold).
        logger: where the one-time path lines go (default this module's logger).
        group_factory, op_factory: replace SymmMemGroup / GemmRsAr (tests).

    Collective: every rank of the group constructs it with the same arguments. Attributes:
    `fused_available` (a group exists), `fallback_reason` (why not, or None), `transport`,
    `tp`, `rank`, `group`.
    """

    def __init__(self, max_M: int, N: int, mode: str, process_group=None, *, sm_margin: int = 0,
                 backend: str | None = None, min_m: int | None = None,
                 timeout_ms: int | None = None, cache_dir=None, manifest=None,
                 logger: logging.Logger | None = None,
                 group_factory: Callable | None = None, op_factory: Callable | None = None):
        import torch.distributed as dist

        if mode not in contract.COLLECTIVE_MODES:
            raise InputError(f"mode = {mode!r} must be one of {contract.COLLECTIVE_MODES} (a "
                             f"row-parallel layer reduces over the ranks)")
        for name, v in (("max_M", max_M), ("N", N)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InputError(f"{name} = {v!r} must be an int >= 1")
        # the arguments every op gets, checked here: a bad one is the caller's error, never a
        # per-K fallback to torch.mm + NCCL with a warning (the ops' InputError is a fallback)
        _int_arg("min_m", min_m, 1, allow_none=True)
        _int_arg("timeout_ms", timeout_ms, 1, MAX_TIMEOUT_MS, allow_none=True)
        _int_arg("sm_margin", sm_margin, 0)
        cache_dir, manifest = path_arg("cache_dir", cache_dir), path_arg("manifest", manifest)
        if not (dist.is_available() and dist.is_initialized()):
            raise RuntimeError("TPContext needs torch.distributed initialised (e.g. "
                               "dist.init_process_group('nccl') under torchrun, one process per "
                               "GPU, the device set): both paths reduce over the process group")
        self.max_M, self.N, self.mode = max_M, N, mode
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        self.group_name: str = self.process_group.group_name
        self.tp = dist.get_world_size(self.process_group)
        self.rank = dist.get_rank(self.process_group)
        self._op_kwargs = {k: v for k, v in (("min_m", min_m), ("timeout_ms", timeout_ms),
                                             ("cache_dir", cache_dir), ("manifest", manifest))
                           if v is not None}
        self._log = logger or log
        self._logged: set[str] = set()
        self._op_factory = op_factory
        self._ops: dict[int, tuple[FusedOp | None, str | None]] = {}
        self.group = None
        self.transport: str | None = None
        self.fallback_reason: str | None = None
        what = f"GEMM+{mode.upper()} (tp={self.tp}, N={N}, max_M={max_M})"
        settings = codegen_env.load()
        if settings.disable_fused:
            self.fallback_reason = "disabled by CODEGEN_DISABLE_FUSED"
            self.log_once(logging.WARNING, f"fused {what} {self.fallback_reason}: every layer of "
                          f"this context uses torch.mm + the torch.distributed collective")
            return
        self.group, self.fallback_reason = self._build_group(group_factory, sm_margin, backend)
        if self.group is None:
            self.log_once(logging.WARNING, f"fused {what} unavailable, every layer of this "
                          f"context falls back to torch.mm + NCCL: {self.fallback_reason}")
            return
        self.transport, why = transport_choice(self.group, mode, None, self.group.device.index)
        notes = sorted({n for n in getattr(self.group, "multicast_note", {}).values() if n})
        if why and notes:  # SymmMemGroup dropped the pointer: say why it did
            why += " (" + "; ".join(notes) + ")"
        self.log_once(logging.INFO, f"fused {what} over {type(self.group).__name__}, transport "
                      f"{self.transport}" + (f" (multicast not used: {why})" if why else ""))

    @property
    def fused_available(self) -> bool:
        return self.group is not None

    # ---- copies: a context is shared, never copied (SharedInstance) ------------------------
    # It holds the process group, the symmetric group its peers map and the ops registered for
    # its layers (before: deepcopy raised "cannot pickle ...ProcessGroup object").
    def pickle_refusal(self) -> str:
        return ("a TPContext cannot be pickled: it holds this process's process group and "
                "symmetric buffers; construct it (collectively) in the process that uses it")

    # ---- collective helpers ---------------------------------------------------------------
    def agree(self, reason: str | None) -> str | None:
        """Every rank's reason joined, or None when no rank has one (collective)."""
        return agree_on_reason(reason, self.process_group)

    def log_once(self, level: int, message: str) -> None:
        if message not in self._logged:
            self._logged.add(message)
            self._log.log(level, message)

    def _build_group(self, factory, sm_margin: int, backend):
        from .symm_group import SymmetricMemoryUnavailable, SymmMemGroup

        try:
            group = (factory or SymmMemGroup)(self.max_M, self.N, self.mode, self.process_group,
                                              sm_margin=sm_margin, backend=backend)
            reason = None
        except (SymmetricMemoryUnavailable, SpecError) as exc:
            group, reason = None, str(exc)
        reason = self.agree(reason)
        return (group, None) if reason is None else (None, reason)

    # ---- one op per K ---------------------------------------------------------------------
    def fused_op(self, K: int) -> tuple[FusedOp | None, str | None]:
        """(the fused op of K, None) or (None, why not); built, prepare()d and registered the
        first time K is asked for (collective then: every rank asks for the same Ks in the
        same order)."""
        if K not in self._ops:
            self._ops[K] = self._build_op(K) if self.group is not None else (None, self.fallback_reason)
        return self._ops[K]

    def _build_op(self, K: int) -> tuple[FusedOp | None, str | None]:
        from .op import GemmRsAr

        factory = self._op_factory or GemmRsAr
        reason = prev = None
        for transport in [self.transport] + (["unicast"] if self.transport == "multicast" else []):
            try:
                op = factory(self.max_M, self.N, K, self.mode, self.group, transport=transport,
                             **self._op_kwargs)
                op.prepare()  # every kernel it may need, now (not inside a graph capture)
                mine = None
            except _OP_FALLBACK_ERRORS as exc:
                op, mine = None, f"{type(exc).__name__}: {exc}"
            reason = self.agree(mine)
            if reason is None:
                if transport != self.transport:
                    self.log_once(logging.WARNING, f"multicast kernels unavailable ({prev}); "
                                  f"using the unicast transport")
                    self.transport = transport
                runs = should_run_runs(op.should_run, self.max_M, K)
                reason = self._verdicts_differ(op, runs)
                if reason is None:
                    return FusedOp(op, torch_ops.register(op), runs), None
                break
            prev = reason
        self.log_once(logging.WARNING, f"fused GEMM+{self.mode.upper()} unavailable for K={K}, "
                      f"layers with this K use torch.mm + NCCL: {reason}")
        return None, reason

    def _verdicts_differ(self, op, runs) -> str | None:
        """Why the ranks' per-M dispatch of K's op differs, or None (collective). Each rank
        computes its verdicts (runs) and kernel choices from its own tuning table: a rank on
        the fused kernel while a peer takes NCCL, or two ranks on different kernels, wait on
        each other until the time-out. So every rank shares a fingerprint (the runs and the
        table's choice rows) once, at build time."""
        import torch.distributed as dist

        table = op.tuning_table() if hasattr(op, "tuning_table") else None
        rows = (tuple((r.M, r.schedule, r.bn, r.cta_group) for r in table.rows)
                if table is not None else None)
        mine = (runs, rows)
        prints: list = [None] * self.tp
        dist.all_gather_object(prints, mine, group=self.process_group)
        if all(p == mine for p in prints):
            return None

        def text(runs, rows):
            fused = [f"{lo}..{last}" for (lo, (last, v)) in
                     zip([1] + [r[0] + 1 for r in runs], runs) if v]
            return (f"fused at M {', '.join(fused) or 'none'}, tuning table "
                    + ("none" if rows is None else f"rows {list(rows)}"))
        return ("ranks disagree on the per-M fused/unfused dispatch (different tuning tables "
                "under their cache roots, or different min_m?): "
                + "; ".join(f"rank {r}: {text(*p)}" for r, p in enumerate(prints)))

    def check_errors(self) -> None:
        """Raise KernelTimeoutError if a kernel of this context's group timed out (its local
        rank's error record; no device sync). Its ops check at each call; a server replaying
        CUDA graphs never calls them, so it must call this (or
        codegen.runtime.check_all_errors) itself, e.g. after each step; then `recover()`."""
        for fused, _ in self._ops.values():
            if fused is not None:
                fused.op.check_errors()
                return

    def recover(self) -> None:
        """After a KernelTimeoutError (collective): clear every op's error record, then the
        group's flags (SymmMemGroup.reset_state: barrier, zero, barrier). Not for normal use."""
        for fused, _ in self._ops.values():
            if fused is not None:
                fused.op.reset_errors()
        if self.group is not None:
            self.group.reset_state()

    def release(self) -> None:
        """Unregister this context's ops from the custom-op registry (after its last call)."""
        for fused, _ in self._ops.values():
            if fused is not None:
                torch_ops.unregister(fused.handle)
        self._ops.clear()


def weight_in_aligned_rows(weight: torch.Tensor) -> torch.Tensor:
    """`weight` [N, K] itself where every row starts on a contract.ROW_LINE_BYTES line (row stride a
    multiple of the line, 128-byte aligned start) or its layout is not row-major; else the
    [:, :K] view of a zero-padded copy whose rows are (row stride K rounded up to the line):
    the kernels then read W's rows whole lines at a time (one H200, mode none, with x left as it
    is: up to 1.18x at N 7168 K 2360 M 16..32, 1.16x at N 2048 K 4104 M 256, ~1% at N 8192 K 3696;
    BENCHMARKS.md, nineteenth session). Costs (ceil(K / line) x line - K) / K more memory (K
    3696: 0.4%, K 1000: 2.4%), once, at load."""
    line_bytes, esize = contract.ROW_LINE_BYTES, weight.element_size()
    line = line_bytes // esize if line_bytes % esize == 0 else 0
    if not line or weight.dim() != 2 or weight.stride(1) != 1 or weight.shape[0] == 0:
        return weight
    N, K = weight.shape
    if weight.stride(0) % line == 0 and weight.data_ptr() % line_bytes == 0:
        return weight
    ld = contract.cdiv(K, line) * line
    with torch.no_grad():
        # (one line more, the start moved onto a line: CUDA's allocator aligns to 512 bytes,
        # others may not)
        flat = weight.new_zeros(N * ld + line)
        skip = (-flat.data_ptr() % line_bytes) // esize
        buf = flat[skip:skip + N * ld].view(N, ld)
        buf[:, :K].copy_(weight)
    return buf[:, :K]


class RowParallelLinear(torch.nn.Module):
    """y = sum over ranks of x_r @ W_r^T: all-reduced ('ar', [M, N]; x [..., K] gives
    [..., N]) or this rank's rows of it ('rs', 2-D x only: [ceil(M/tp), N], zero rows past M).
    No bias; inference only: with grad mode on, an x (or weight) that requires grad is an
    InputError (run under torch.no_grad() / torch.inference_mode()).

    `weight`: this rank's shard [N, K] (bf16, on this rank's GPU for the fused path; row-major:
    contiguous, or rows a multiple of 8 elements apart, e.g. a [:, :K] view of a buffer whose
    rows are 64-aligned, which the kernels read fastest when K is no multiple of 64). With
    `align_rows` (the default) a weight whose rows do not start on 128-byte lines (K no multiple
    of 64, contiguous) is copied once into such a buffer (weight_in_aligned_rows): `self.weight`
    is then a [:, :K] view of it, not the tensor passed; `align_rows=False` keeps the tensor.
    Construction is collective (see TPContext). `last_path` is 'fused' or 'unfused' after a
    call; `fallback_reason` says why this layer never takes the fused path (or None).
    """

    def __init__(self, weight: torch.Tensor, ctx: TPContext, align_rows: bool = True):
        super().__init__()
        if not isinstance(weight, torch.Tensor) or weight.dim() != 2 or weight.shape[0] != ctx.N:
            shape = tuple(weight.shape) if isinstance(weight, torch.Tensor) else type(weight).__name__
            raise InputError(f"weight must be this rank's shard [N={ctx.N}, K], got {shape}")
        if align_rows:
            weight = weight_in_aligned_rows(weight)
        self.weight = torch.nn.Parameter(weight, requires_grad=False)
        self.N, self.K = int(weight.shape[0]), int(weight.shape[1])
        self.mode, self.tp, self._group_name = ctx.mode, ctx.tp, ctx.group_name
        fused, reason = ctx.fused_op(self.K)
        if fused is not None:
            mine = None if fused.op.can_run(weight) else (
                f"weight {tuple(weight.shape)} {weight.dtype} on {weight.device} "
                f"(strides {tuple(weight.stride())}) does not fit the fused op (bf16, row-major "
                f"with rows a multiple of 8 elements apart, 16-byte aligned, on the group's "
                f"device)")
            reason = ctx.agree(mine)
            if reason is not None:
                ctx.log_once(logging.WARNING, f"RowParallelLinear [N={self.N}, K={self.K}] uses "
                             f"torch.mm + NCCL: {reason}")
                fused = None
        self.fallback_reason = reason
        self._handle = fused.handle if fused is not None else None
        self._runs = fused.runs if fused is not None else ()
        self.last_path: str | None = None

    def extra_repr(self) -> str:
        return (f"N={self.N}, K={self.K}, mode={self.mode!r}, tp={self.tp}, "
                f"fused={'yes' if self._handle is not None else 'no: ' + str(self.fallback_reason)}")

    def takes_fused(self, x: torch.Tensor) -> bool:
        """Whether a call on `x` uses the fused kernel (traceable: no file or device access)."""
        if self._handle is None or x.dim() != 2 or x.dtype != torch.bfloat16:
            return False
        if x.shape[1] != self.K or x.device != self.weight.device:
            return False
        M = x.shape[0]
        if M < 1:
            return False
        for last, verdict in self._runs:
            if M <= last:
                return verdict
        return False  # M > max_M

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        try:
            needs_grad = x.requires_grad
        except AttributeError:
            raise InputError(f"x must be a torch.Tensor [..., K={self.K}], got "
                             f"{type(x).__name__}") from None
        if needs_grad and torch.is_grad_enabled():
            raise InputError("x requires grad, but RowParallelLinear is inference only (neither "
                             "path has autograd); call it under torch.no_grad() or "
                             "torch.inference_mode(), or pass x.detach()")
        if x.dim() != 2:
            return self._forward_nd(x)
        if self.takes_fused(x):
            self.last_path = FUSED
            if torch.compiler.is_compiling():
                return torch_ops.CUSTOM_OPS[self.mode](x, self.weight, self._handle)
            return torch_ops.run(self._handle, x, self.weight, self.mode)  # no dispatcher cost
        w = self.weight
        if x.dtype != w.dtype or x.shape[1] != self.K or x.device != w.device or w.requires_grad:
            self._check_unfused(x, w)   # torch.mm's own errors would not say what to pass
        self.last_path = UNFUSED
        return unfused(x, w, self.mode, self.tp, self._group_name)

    def _forward_nd(self, x: torch.Tensor) -> torch.Tensor:
        """x [..., K] other than 2-D: 'ar' flattens the leading dims and shapes the output back;
        'rs' refuses (which rows a rank gets depends on the flattening: the caller's choice)."""
        if x.dim() == 0 or x.shape[-1] != self.K:
            raise InputError(f"x must be [..., K={self.K}], got shape {tuple(x.shape)}")
        if self.mode == "rs":
            raise InputError(f"x must be 2-D [M, K] in mode 'rs', got shape {tuple(x.shape)}: "
                             f"each rank gets ceil(M/tp) rows of the tokens' sum; pass "
                             f"x.reshape(-1, {self.K}) and use the rows it returns")
        y = self.forward(x.reshape(-1, self.K))
        return y.view(*x.shape[:-1], self.N)

    def _check_unfused(self, x: torch.Tensor, w: torch.Tensor) -> None:
        """The unfused path's inputs, named: x's dtype and device must be the weight's."""
        if x.dtype != w.dtype:
            raise InputError(f"x.dtype must be the weight's {w.dtype} (the fused kernels take "
                             f"torch.bfloat16), got {x.dtype}")
        if x.shape[1] != self.K:
            raise InputError(f"x must be [M, K={self.K}], got shape {tuple(x.shape)}")
        if x.device != w.device:
            raise InputError(f"x.device must be the weight's {w.device}, got {x.device}")
        if w.requires_grad and torch.is_grad_enabled():
            raise InputError("the weight requires grad, but RowParallelLinear is inference only; "
                             "call it under torch.no_grad() or torch.inference_mode(), or "
                             "layer.requires_grad_(False)")


_c10d = torch.ops._c10d_functional  # the traceable functional collectives' ops (tests replace it)


def unfused(x: torch.Tensor, weight: torch.Tensor, mode: str, tp: int,
            group_name: str) -> torch.Tensor:
    """torch.mm + all_reduce ('ar') or + reduce_scatter over M padded with zero rows to a
    multiple of tp ('rs': [ceil(M/tp), N], the fused op's shape and padding)."""
    y = torch.mm(x, weight.t())
    if mode == "ar":
        return _c10d.wait_tensor(_c10d.all_reduce(y, "sum", group_name))
    M = x.shape[0]
    pad = contract.chunk(M, tp) * tp - M
    if pad:
        y = torch.nn.functional.pad(y, (0, 0, 0, pad))
    return _c10d.wait_tensor(_c10d.reduce_scatter_tensor(y, "sum", tp, group_name))
