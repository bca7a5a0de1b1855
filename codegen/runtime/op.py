"""GemmRsAr: the fused GEMM + reduce-scatter / all-reduce op (and mode 'none', plain GEMM).

One instance per (max_M, N, K, mode, group). Per call it validates the inputs (before any
launch), picks BN / CTA group / grid (dispatch.py), finds the variant's cubin in the cache,
packs the parameters of KERNEL-CONTRACT.md by name and launches on the rank's stream.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from codegen import env as codegen_env
from codegen.spec import Variant

from . import dispatch, geometry
from .cache_index import build_command, find_entry
from .errors import InputError, KernelTimeoutError
from .group import Group
from .kernel import LoadedKernel, load_kernel
from .params import coord_shape
from .tma import encode_bf16_2d, tma_box
from .transport import multicast_unavailable_reason
from .validate import check_m, check_matrix, check_out, check_rank

_ARCH_OF_CAPABILITY = {(9, 0): "sm_90a", (10, 0): "sm_100a"}
_MODES = ("rs", "ar", "none")
_DESC_CACHE_MAX = 256


class GemmRsAr:
    """Fused `x_r @ W_r^T` + reduce-scatter ('rs') / all-reduce ('ar'), or plain GEMM ('none').

    Args:
        max_M: largest M a call may pass (sizes nothing here: the group's buffers are sized
            by the group's max_M, which must be >= this).
        N, K: weight shape [N, K] (K is per rank).
        mode: 'rs' | 'ar' | 'none'. 'none' needs no group (launches on the current stream).
        group: a Group (e.g. VirtualGroup) with the same mode and N.
        bn, cta_group: fix the tile width / CTA group instead of dispatching on M.
        sm_budget: cap of the persistent grid (default: the group's; all SMs for 'none').
        transport: 'unicast' | 'multicast' | None (multicast when available, else unicast).
        arch: 'sm_90a' | 'sm_100a' (default: from the device's compute capability).
        min_m: should_run() threshold on M.
        timeout_ms: bound of every in-kernel wait (default CODEGEN_WAIT_TIMEOUT_MS).
        cache_dir: cache root (default CODEGEN_CACHE_DIR).
        device: device of a group-less 'none' op (default: current device).
    """

    def __init__(self, max_M: int, N: int, K: int, mode: str, group: Group | None = None,
                 bn: int | None = None, cta_group: int | None = None, sm_budget: int | None = None,
                 transport: str | None = None, *, arch: str | None = None, min_m: int = 128,
                 timeout_ms: int | None = None, cache_dir: str | Path | None = None,
                 device: int | str | torch.device | None = None):
        if mode not in _MODES:
            raise InputError(f"mode = {mode!r} must be one of {_MODES}")
        if max_M < 1:
            raise InputError(f"max_M = {max_M} must be >= 1")
        if K < geometry.BK or K % geometry.BK:
            raise InputError(f"K = {K} must be a positive multiple of {geometry.BK}")
        if bn not in (None, 128, 256):
            raise InputError(f"bn = {bn!r} must be 128, 256 or None")
        if N < geometry.MIN_BN or N % (bn or geometry.MIN_BN):
            raise InputError(f"N = {N} must be a positive multiple of {bn or geometry.MIN_BN}")
        if cta_group not in (None, 1, 2):
            raise InputError(f"cta_group = {cta_group!r} must be 1, 2 or None")
        if transport not in (None, "unicast", "multicast"):
            raise InputError(f"transport = {transport!r} must be 'unicast', 'multicast' or None")
        if mode != "none":
            if group is None:
                raise InputError(f"mode = {mode!r} needs a group")
            if group.mode != mode:
                raise InputError(f"group.mode = {group.mode!r} does not match mode = {mode!r}")
            if group.N != N:
                raise InputError(f"group.N = {group.N} does not match N = {N}")
            if group.max_M < max_M:
                raise InputError(f"group.max_M = {group.max_M} is smaller than max_M = {max_M}")
        settings = codegen_env.load()
        self.max_M, self.N, self.K, self.mode, self.group = max_M, N, K, mode, group
        self.fixed_bn, self.fixed_cta_group = bn, cta_group
        self.min_m = min_m
        self.tp = group.tp if group is not None else 1
        if group is not None:
            self.device = group.device
        elif device is None:
            self.device = None  # resolved at first use: no GPU needed to construct
        else:
            self.device = torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
        self._sm_budget = sm_budget
        self._arch = arch
        self._transport_req = transport
        self._transport = None if mode != "none" else "none"
        self.timeout_ns = int(timeout_ms if timeout_ms is not None else settings.wait_timeout_ms) * 1_000_000
        self.cache_dir = Path(cache_dir) if cache_dir is not None else settings.cache_dir
        self._kernels: dict[str, LoadedKernel] = {}
        self._desc_cache: dict[tuple, bytes] = {}
        self._err_views: dict[int, np.ndarray] = {}
        self._last_variant: dict[int, str] = {}
        self.last_launch: dict[int, dict] = {}  # rank -> {variant, bn, cta_group, grid}

    # ---- public queries -------------------------------------------------------------------
    @property
    def local_ranks(self) -> tuple[int, ...]:
        return self.group.local_ranks if self.group is not None else (0,)

    def can_run(self, weight) -> bool:
        """Whether `weight` fits this op: bf16, 2-D [N, K], row-major, aligned, on the device."""
        try:
            check_matrix("weight", weight, self._device(), self.N, self.K)
        except InputError:
            return False
        return True

    def should_run(self, x) -> bool:
        """Whether the fused kernel is worth it for `x` (M >= min_m; below, torch.mm + NCCL)."""
        return isinstance(x, torch.Tensor) and x.dim() == 2 and self.min_m <= x.shape[0] <= self.max_M

    def out_shape(self, M: int) -> tuple[int, int]:
        return geometry.out_shape(self.mode, M, self.N, self.tp)

    def config(self, M: int) -> tuple[int, int]:
        """(BN, cta_group) a call with M rows uses."""
        cg = dispatch.choose_cta_group(M, self.fixed_cta_group)
        known = self._sm_budget is not None or self.group is not None or torch.cuda.is_available()
        ctas = self.sm_budget if self.fixed_bn is None and known else None
        return dispatch.choose_bn(M, self.N, self.fixed_bn, ctas=ctas, cluster=cg), cg

    @property
    def arch(self) -> str:
        if self._arch is None:
            cap = torch.cuda.get_device_capability(self._device())
            if cap not in _ARCH_OF_CAPABILITY:
                raise InputError(f"device {self._device()} has compute capability {cap}; "
                                 f"kernels exist for {sorted(_ARCH_OF_CAPABILITY)} only")
            self._arch = _ARCH_OF_CAPABILITY[cap]
        return self._arch

    @property
    def transport(self) -> str:
        """'unicast' | 'multicast' for rs/ar ('none' for mode none); decided once."""
        if self._transport is None:
            self._transport = self._choose_transport()
        return self._transport

    @property
    def sm_budget(self) -> int:
        if self._sm_budget is not None:
            return self._sm_budget
        if self.group is not None:
            return self.group.sm_budget
        return torch.cuda.get_device_properties(self._device()).multi_processor_count

    def variant(self, M: int) -> Variant:
        bn, cg = self.config(M)
        if self.mode == "none":
            return Variant(self.arch, "none", None, bn, cg, None)
        return Variant(self.arch, self.mode, self.transport, bn, cg, self.tp)

    # ---- kernels ----------------------------------------------------------------------------
    def kernel(self, variant: Variant) -> LoadedKernel:
        """The loaded kernel of `variant` (from the cache; CacheMissError names the build)."""
        k = self._kernels.get(variant.name)
        if k is None:
            cmd = build_command(variant.arch, variant.mode, variant.tp if variant.tp else None)
            entry = find_entry(self.cache_dir, variant.arch, variant.name, cmd)
            k = load_kernel(entry, self._device().index)
            k.function  # load now, not inside a later graph capture
            self._kernels[variant.name] = k
        return k

    def prepare(self, Ms=None) -> list[str]:
        """Load every variant the calls with rows `Ms` (default: every dispatch choice) need.

        Call it before CUDA-graph capture, or at start-up to surface cache misses early.
        """
        if Ms is None:
            Ms = {1, dispatch.CTA_GROUP_2_MIN_M, dispatch.BN_256_MIN_M, self.max_M}
            Ms = [m for m in Ms if m <= self.max_M]
        names = []
        for M in sorted(set(Ms)):
            v = self.variant(M)
            self.kernel(v)
            names.append(v.name)
        return sorted(set(names))

    # ---- calls ------------------------------------------------------------------------------
    def __call__(self, rank: int, x: torch.Tensor, weight: torch.Tensor,
                 out: torch.Tensor | None = None) -> torch.Tensor:
        """Launch rank `rank`'s kernel on its stream and return its output tensor.

        RS: [ceil(M/tp), N]; AR and none: [M, N]. With a group whose `stream(rank)` is not the
        current stream (virtual groups), the rank stream first waits on the current stream,
        and the caller must make its stream wait for the rank streams (:meth:`join`) before
        using or freeing `out`; :meth:`run_all` does both.
        """
        self.check_errors()
        M = self._validate(rank, x, weight)
        if out is None:
            out = torch.empty(self.out_shape(M), dtype=torch.bfloat16, device=x.device)
        else:
            check_out(out, self.out_shape(M), self._device())
        self._launch(rank, x, weight, out, M)
        return out

    def run_all(self, xs, weights, out=None) -> list[torch.Tensor]:
        """Launch every local rank (virtual group) and make the current stream wait for them.

        `xs[r]`, `weights[r]` are rank r's inputs; `out` optionally gives the output tensors
        (e.g. poisoned ones in tests). Every input is validated before the first launch; the
        rank streams wait on the current stream first, so this also works under CUDA-graph
        capture.
        """
        ranks = self.local_ranks
        if len(xs) != len(ranks) or len(weights) != len(ranks):
            raise InputError(f"run_all needs one x and one weight per local rank ({len(ranks)}), "
                             f"got {len(xs)} and {len(weights)}")
        if out is not None and len(out) != len(ranks):
            raise InputError(f"out must hold {len(ranks)} tensors, got {len(out)}")
        self.check_errors()
        Ms = [self._validate(r, x, w) for r, x, w in zip(ranks, xs, weights)]
        if len(set(Ms)) != 1:
            raise InputError(f"every rank must pass the same M, got {Ms}")
        shape = self.out_shape(Ms[0])
        if out is None:
            out = [torch.empty(shape, dtype=torch.bfloat16, device=self._device()) for _ in ranks]
        else:
            for i, o in enumerate(out):
                check_out(o, shape, self._device(), f"out[{i}]")
        # One event recorded before any launch: a rank stream must never wait on work enqueued
        # after another rank's kernel (it would serialise the ranks, which spin on each other).
        dev = self._device()
        with torch.cuda.device(dev):
            ready = torch.cuda.Event()
            ready.record(torch.cuda.current_stream(dev))
        for r, x, w, o in zip(ranks, xs, weights, out):
            self._launch(r, x, w, o, Ms[0], ordered_after=ready)
        self.join()
        return list(out)

    def join(self) -> None:
        """Make the current stream wait for every local rank's stream."""
        if self.group is None:
            return
        cur = torch.cuda.current_stream(self._device())
        for r in self.local_ranks:
            s = self.group.stream(r)
            if s is not None and s != cur:
                cur.wait_stream(s)

    # ---- errors -----------------------------------------------------------------------------
    def check_errors(self) -> None:
        """Raise KernelTimeoutError if any local rank's error record is set (no device sync).

        The error names the first rank with a record; `.others` holds the other ranks'
        KernelTimeoutErrors (a stalled rank makes its peers time out too, so the full set
        tells which rank was missing).
        """
        if self.group is None:
            return
        found = []
        for r in self.local_ranks:
            view = self._err_views.get(r)
            if view is None:
                view = self._err_views[r] = self.group.error_record(r).numpy()
            if view[0] != 0:
                found.append(KernelTimeoutError(self._last_variant.get(r, "unknown variant"), r,
                                                [int(v) for v in view[:8]]))
        if found:
            first = found[0]
            first.others = found[1:]
            if first.others:
                first.args = (first.args[0] + "; also: " + "; ".join(
                    f"rank {e.rank} waited for peer {e.peer} (tile {e.tile}, code {e.code})"
                    for e in first.others),)
            raise first

    def synchronize(self) -> None:
        """Wait for every local rank's stream (or the device), then :meth:`check_errors`."""
        if self.group is None:
            torch.cuda.synchronize(self._device())
            return
        for r in self.local_ranks:
            s = self.group.stream(r)
            if s is None:
                torch.cuda.synchronize(self._device())
            else:
                s.synchronize()
        self.check_errors()

    def reset_errors(self) -> None:
        """Clear every local rank's error record (waits for the rank streams first)."""
        if self.group is None:
            return
        for r in self.local_ranks:
            s = self.group.stream(r)
            (s.synchronize() if s is not None else torch.cuda.synchronize(self._device()))
        for r in self.local_ranks:
            self.group.error_record(r).zero_()

    # ---- internals --------------------------------------------------------------------------
    def _device(self) -> torch.device:
        if self.device is None:
            self.device = torch.device("cuda", torch.cuda.current_device())
        return self.device

    def _choose_transport(self) -> str:
        if self.mode == "none":
            return "none"
        g = self.group
        ptrs = [g.workspace(r).multicast_ptr for r in g.local_ranks]
        if self.mode == "ar":
            ptrs += [g.ar_buffer(r).multicast_ptr for r in g.local_ranks]
        reason = multicast_unavailable_reason(ptrs, self._device().index)
        if self._transport_req == "multicast" and reason:
            raise InputError(f"transport = 'multicast' is unavailable: {reason}")
        if self._transport_req is not None:
            return self._transport_req
        return "unicast" if reason else "multicast"

    def _validate(self, rank, x, weight) -> int:
        dev = self._device()
        check_matrix("x", x, dev, None, self.K)
        check_matrix("weight", weight, dev, self.N, self.K)
        check_m(x.shape[0], self.max_M)
        check_rank(rank, self.local_ranks, self.tp)
        return x.shape[0]

    def _descriptor(self, ptr: int, rows: int, inner: int, box: tuple[int, int],
                    swizzle: str) -> bytes:
        # A descriptor is a pure function of (address, shape, box): caching by them is exact.
        key = (ptr, rows, inner, box, swizzle)
        d = self._desc_cache.get(key)
        if d is None:
            if len(self._desc_cache) >= _DESC_CACHE_MAX:
                self._desc_cache.clear()
            d = self._desc_cache[key] = encode_bf16_2d(ptr, rows, inner, inner * 2, box, swizzle)
        return d

    def _params(self, rank: int, x, weight, out, M: int, kern: LoadedKernel) -> dict:
        """Every parameter of KERNEL-CONTRACT.md by name; the kernel's ABI picks what it takes.

        TMA operands: a = x [M, K], b = W [N, K], c = the tile store target (mode none: out
        [M, N]; rs/ar: this rank's workspace viewed as [2 * rows_pad, N]).
        """
        g = self.group
        tma = kern.entry.meta.get("tma", {})
        kinds = {s.name: s.kind for s in kern.specs}
        p: dict = {"m": M, "out_ptr": out.data_ptr()}
        if self.mode == "none":
            c_ptr, c_rows = out.data_ptr(), M
        else:
            c_ptr, c_rows = g.workspace(rank).ptr, 2 * g.rows_pad
        operands = {"a": (x.data_ptr(), M, self.K), "b": (weight.data_ptr(), self.N, self.K),
                    "c": (c_ptr, c_rows, self.N)}
        for op_name, (ptr, rows, inner) in operands.items():
            name = f"tma_{op_name}"
            if name in kinds:
                p[name] = self._descriptor(ptr, rows, inner, tma_box(tma, op_name),
                                           tma.get(op_name, {}).get("swizzle", "128B"))
            if name + "_shape" in kinds:
                p[name + "_shape"] = coord_shape(kinds[name + "_shape"], (rows, inner))
        if self.mode == "none":
            return p
        ws, fl, ar = g.workspace(rank), g.flags(rank), g.ar_buffer(rank)
        mc = self.transport == "multicast"
        p.update({
            "rank": rank,
            "ws_ptr": ws.ptr,
            "flag_ptr": fl.ptr,
            "ar_ptr": ar.ptr if ar is not None else 0,
            "peer_ws_ptr": ws.peer_ptrs.data_ptr(),
            "peer_flag_ptr": fl.peer_ptrs.data_ptr(),
            "peer_ar_ptr": ar.peer_ptrs.data_ptr() if ar is not None else 0,
            "mc_ws_ptr": ws.multicast_ptr if mc else 0,
            "mc_ar_ptr": ar.multicast_ptr if (mc and ar is not None) else 0,
            "err_ptr": g.error_record_device_ptr(rank),
            "timeout_ns": self.timeout_ns,
            "rows_pad": g.rows_pad,
            "m_tiles_max": g.m_tiles_max,
        })
        return p

    def _rank_stream(self, rank: int, cur):
        # mode none is a plain GEMM: always the caller's stream
        s = self.group.stream(rank) if self.group is not None and self.mode != "none" else None
        return cur if s is None else s

    def _launch(self, rank: int, x, weight, out, M: int, ordered_after=None) -> None:
        """Launch one rank. Its stream first waits on `ordered_after` (an event recorded on the
        caller's stream before any rank launched) or, without one, on the current stream."""
        variant = self.variant(M)
        kern = self.kernel(variant)
        launch = kern.entry.meta["launch"]
        bn = int(launch.get("bn", variant.bn))
        grid = dispatch.grid_size(M, self.N, bn, kern.cluster[0], self.sm_budget,
                                  int(launch.get("min_grid_multiple", 1)))
        params = self._params(rank, x, weight, out, M, kern)
        dev = self._device()
        with torch.cuda.device(dev):
            cur = torch.cuda.current_stream(dev)
            s = self._rank_stream(rank, cur)
            if s != cur:
                # inputs (and out's allocation) are ordered on `cur`
                if ordered_after is not None:
                    s.wait_event(ordered_after)
                else:
                    s.wait_stream(cur)
            kern.launch(grid, params, s)
        self._last_variant[rank] = variant.name
        self.last_launch[rank] = {"variant": variant.name, "bn": variant.bn,
                                  "cta_group": variant.cta_group, "grid": grid}
