"""A launch plan per call shape: what one (rank, M) launch of an op passes, built once.

Everything of a launch that does not change between calls with the same rank and M (the
variant, the loaded kernel, the grid, the packed contract parameters: group pointers, M, the
coordinate tensors, the time-out) is computed on the first such call. A later call patches
only the fields that come from its tensors (the TMA descriptors of x (sm_90a: two, `a` and
`t`, the last row tile's) and the weight, the output pointer, and the output's descriptor where
the kernel stores through one) and, for a streamk kernel, the workspace and flag pointers of
its stream's set (streamk_buffers), and launches. The launch config is kept per stream.

Patching is exact: a descriptor is a pure function of (address, rows, inner, box, swizzle, row
stride) (launch_plan.Descriptors caches it by exactly those); the rows, inner sizes and boxes of
every per-call operand are fixed by (M, N, K), which the plan's key fixes, and a call passes the
addresses and the row strides of x and the weight (row-strided views are allowed).
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

from .driver import check, cuda, ensure_context
from .kernel import LoadedKernel
from .launch_plan import CallTensors, Descriptors, tma_geometry, tma_operands
from .params import PackedParams, pack_params
from .validate import row_stride
from .raw_launch import launch_function, raw_config

#: Stream configs kept per plan (a plan normally sees one or two streams).
_CONFIGS_MAX = 16
_INVALID_CONTEXT = cuda.CUresult.CUDA_ERROR_INVALID_CONTEXT


#: The call tensors a plan patches, in the order of CallPlan.bind's arguments.
_SOURCES = ("x", "weight", "out")


@dataclass(frozen=True)
class _DescriptorSlot:
    """A `tma_<op>` parameter whose descriptor reads a call tensor."""

    offset: int
    source: int                 # index into _SOURCES
    rows: int
    inner: int
    box: tuple[int, int]
    swizzle: str


class CallPlan:
    """One (rank, M) launch of one op: packed once, patched per call (see module docstring).

    `values` are the contract parameters of the first call (launch_plan.kernel_arguments) and
    `tensors` that call's tensors. Not for concurrent use from two threads without the lock
    it holds (:meth:`launch` takes it).
    """

    def __init__(self, kern: LoadedKernel, grid: int, values: dict, tensors: CallTensors,
                 descriptors: Descriptors, group=None, rank: int = 0):
        if grid % kern.cluster[0]:
            raise ValueError(f"grid {grid} is not a multiple of the cluster size {kern.cluster[0]}")
        self.kern = kern
        self.grid = grid
        self.M = tensors.M
        self._descriptors = descriptors
        self._packed: PackedParams = pack_params(kern.specs, values)
        self._slots = []
        for op_name, (_, rows, inner, source, _) in tma_operands(kern, tensors, group,
                                                                rank).items():
            if source is not None:
                box, swizzle = tma_geometry(kern, op_name, tensors.M)
                self._slots.append(_DescriptorSlot(self._packed.offset_of(f"tma_{op_name}"),
                                                   _SOURCES.index(source), rows, inner, box,
                                                   swizzle))
        # the output pointer as a u64 cell in the packed buffer (contract kind u64), where the
        # kernel takes one (sm_90a mode none stores through tma_c only)
        self._out_cell = None
        if "out_ptr" in kern.param_names:
            self._out_cell = ctypes.c_uint64.from_address(
                self._packed.base + self._packed.offset_of("out_ptr"))
        # a streamk kernel's workspace / flag pointers: its stream's set (streamk_buffers)
        self._sk_cells = None
        self._sk_last = None
        if "sk_ws_ptr" in kern.param_names:
            self._sk_cells = tuple(ctypes.c_uint64.from_address(
                self._packed.base + self._packed.offset_of(n)) for n in ("sk_ws_ptr",
                                                                         "sk_flag_ptr"))
        # per source: (address, row stride) of the tensor last patched in
        self._last = ((tensors.x.data_ptr(), row_stride(tensors.x)),
                      (tensors.weight.data_ptr(), row_stride(tensors.weight)),
                      (tensors.out.data_ptr(), 0))
        # stream -> (cuda-python config, C twin or None, the driver function for the twin)
        self._configs: dict[int, tuple] = {}
        self._func = None                       # (CUfunction, its handle as int)
        self._lock = threading.Lock()

    def bind(self, x_ptr: int, weight_ptr: int, out_ptr: int, x_ld: int = 0,
             weight_ld: int = 0, sk=None) -> None:
        """Patch a call's pointers (and the row strides of x and the weight, 0 = contiguous;
        a streamk kernel's set, as in :meth:`launch`) into the packed parameters (launch does
        it; tests call it to compare with a fresh packing)."""
        self._patch(((x_ptr, x_ld), (weight_ptr, weight_ld), (out_ptr, 0)))
        self._patch_set(sk)

    def _patch_set(self, sk) -> None:
        if sk is None or sk is self._sk_last or self._sk_cells is None:
            return
        self._sk_cells[0].value = sk.ws_ptr
        self._sk_cells[1].value = sk.flag_ptr
        self._sk_last = sk

    def _patch(self, now: tuple) -> None:
        base = self._packed.base
        last = self._last
        for slot in self._slots:
            cur = now[slot.source]
            if cur != last[slot.source]:
                desc = self._descriptors.get(cur[0], slot.rows, slot.inner, slot.box,
                                             slot.swizzle, cur[1])
                ctypes.memmove(base + slot.offset, desc, len(desc))
        if self._out_cell is not None:
            self._out_cell.value = now[2][0]
        self._last = now

    def _config(self, stream_handle: int) -> tuple:
        """(cuda-python config, its C twin or None) of a launch on `stream_handle`."""
        cfgs = self._configs.get(stream_handle)
        if cfgs is None:
            if len(self._configs) >= _CONFIGS_MAX:
                self._configs.clear()
            cfg = self.kern.launch_config(self.grid, stream_handle)
            fn = launch_function()
            raw = raw_config(cfg) if fn is not None else None
            cfgs = self._configs[stream_handle] = (cfg, raw, fn)
        return cfgs

    @property
    def uses_raw_launch(self) -> bool:
        """Whether launches go straight to the driver entry point (see raw_launch.py)."""
        return any(raw is not None for _, raw, _ in self._configs.values())

    def _driver_launch(self, cfgs: tuple, func: tuple) -> int:
        cfg, raw, fn = cfgs
        if raw is not None:
            return fn(raw.address, func[1], self._packed.address, None)
        err, = cuda.cuLaunchKernelEx(cfg, func[0], self._packed.address, 0)
        return int(err)

    def launch(self, x_ptr: int, weight_ptr: int, out_ptr: int, stream_handle: int,
               x_ld: int = 0, weight_ld: int = 0, sk=None) -> None:
        """Patch the call's pointers (and row strides, as in :meth:`bind`) in and launch on
        `stream_handle` (a cudaStream_t as int); a streamk kernel's take the workspace and
        flags of `sk` (streamk_buffers.StreamKSet: the stream's).

        The driver copies the parameters during the call (also under graph capture), so the
        next call may patch the same buffer at once.
        """
        if self._sk_cells is not None and sk is None and self._sk_last is None:
            # (packed with null pointers: streamk_buffers.values; the set is the stream's)
            raise ValueError("a streamk plan's first launch needs its stream's set (sk)")
        if self._func is None:
            f = self.kern.function
            self._func = (f, int(f))
        cfgs = self._configs.get(stream_handle) or self._config(stream_handle)
        with self._lock:
            self._patch(((x_ptr, x_ld), (weight_ptr, weight_ld), (out_ptr, 0)))
            self._patch_set(sk)
            err = self._driver_launch(cfgs, self._func)
            if err == _INVALID_CONTEXT:
                # a thread that never made torch's context current (e.g. a new serving thread)
                ensure_context(self.kern.device_index)
                err = self._driver_launch(cfgs, self._func)
        if err:
            check("cuLaunchKernelEx", cuda.CUresult(err))

    def packed_bytes(self) -> bytes:
        """The parameter bytes the next launch passes (tests and debugging)."""
        return self._packed.bytes()



def current_stream_handle(device_index: int) -> int:
    """The current stream of `device_index` as a cudaStream_t int, without building a
    torch.cuda.Stream object (torch's raw accessor, used by its own compiled code)."""
    import torch

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device_index)
    return torch.cuda.current_stream(device_index).cuda_stream
