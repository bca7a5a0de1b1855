"""What one launch passes to a kernel: exactly the contract's parameters, by name.

`kernel_arguments` turns (kernel, group, rank, tensors) into the dict of values of
`contract.kernel_params(arch, mode)` for that kernel, and nothing else; TMA descriptors come
from a small cache keyed by everything they encode. `tma_operands` also says which call
tensor each descriptor reads, so a CallPlan (call_plan.py) can patch only those per call.
"""
from __future__ import annotations

from dataclasses import dataclass

from codegen import contract

from .errors import InputError
from .kernel import LoadedKernel
from .params import coord_shape
from .tma import encode_bf16_2d, tma_box
from .validate import row_stride

_DESC_CACHE_MAX = 256


class Descriptors:
    """TMA descriptors by (address, rows, inner, box, swizzle, row stride): a descriptor is a
    pure function of these, so caching by them is exact. Bounded: cleared when full."""

    def __init__(self, encode=None):
        self._encode = encode
        self._cache: dict[tuple, bytes] = {}

    def get(self, ptr: int, rows: int, inner: int, box: tuple[int, int], swizzle: str,
            ld: int = 0) -> bytes:
        """The descriptor of a row-major bf16 [rows, inner] at `ptr` whose rows lie `ld`
        elements apart (0: inner, contiguous)."""
        ld = ld or inner
        key = (ptr, rows, inner, box, swizzle, ld)
        d = self._cache.get(key)
        if d is None:
            if len(self._cache) >= _DESC_CACHE_MAX:
                self._cache.clear()
            encode = self._encode or encode_bf16_2d
            d = self._cache[key] = encode(ptr, rows, inner, ld * 2, box, swizzle)
        return d


@dataclass(frozen=True)
class CallTensors:
    """One rank's tensors of one call (validated before they get here)."""

    x: object        # [M, K] bf16
    weight: object   # [N, K] bf16
    out: object      # the output tensor the kernel writes
    M: int
    N: int
    K: int


def tma_geometry(kern: LoadedKernel, op_name: str, M: int) -> tuple[tuple[int, int], str]:
    """(box, swizzle) of TMA operand `op_name` of `kern` for a call with M rows (meta.json
    `tma`; the box of `t`, x's last row tile, holds contract.x_tail_rows(M, tile) rows; where
    each CTA loads a slice of the tile, swapabx's `tail_tile`, those of the partial slice)."""
    tma = kern.entry.meta.get("tma", {})
    box = tma_box(tma, op_name)
    if op_name == "t":
        tile = tma.get("t", {}).get("tail_tile")
        box = (box[0], contract.x_tail_rows(M, box[1]) if tile is None
               else contract.x_tail_rows(M, int(tile), box[1]))
    return box, tma.get(op_name, {}).get("swizzle", "128B")


def tma_operands(kern: LoadedKernel, t: CallTensors, group=None, rank: int = 0) -> dict:
    """op name -> (ptr, rows, inner, source, ld) of every TMA operand `kern`'s contract lists.

    `source` names the call tensor the operand reads ('x', 'weight', 'out'), or None for a
    group buffer (fixed per rank); `ld` is its row stride in elements (x and the weight may be
    row-strided views: validate.row_stride). a = x [M, K], b = W [N, K], c = the tile-store
    target (mode none and the decode schedule: out [M, N]; rs/ar tile: this rank's workspace
    viewed as [2 * workspace_rows, N]), t = x [M, K] again (its box: the last row tile's rows).
    """
    if kern.mode == "none" or kern.variant.schedule != "tile":
        c = (t.out.data_ptr(), t.M, t.N, "out", t.N)    # (no tma_c outside the sm_90a tile kernels)
    else:
        c = (group.workspace(rank).ptr, 2 * group.workspace_rows, t.N, None, t.N)
    x = (t.x.data_ptr(), t.M, t.K, "x", row_stride(t.x))
    every = {"a": x, "b": (t.weight.data_ptr(), t.N, t.K, "weight", row_stride(t.weight)),
             "c": c, "t": x}
    return {name: every[name] for name in contract.tma_operands(kern.arch, kern.variant.schedule)}


def _tma_values(kern: LoadedKernel, operands: dict, descriptors: Descriptors, M: int) -> dict:
    """tma_<op> and tma_<op>_shape of every TMA operand."""
    kinds = {s.name: s.kind for s in kern.specs}
    values = {}
    for op_name, (ptr, rows, inner, _, ld) in operands.items():
        box, swizzle = tma_geometry(kern, op_name, M)
        values[f"tma_{op_name}"] = descriptors.get(ptr, rows, inner, box, swizzle, ld)
        shape_kind = kinds.get(f"tma_{op_name}_shape", "i32x2")
        values[f"tma_{op_name}_shape"] = coord_shape(shape_kind, (rows, inner))
    return values


def _collective_values(group, rank: int, transport: str, timeout_ns: int) -> dict:
    ws, fl, ar = group.workspace(rank), group.flags(rank), group.ar_buffer(rank)
    land = group.landing(rank)
    mc = transport == "multicast"
    return {
        "push_tmap_ptr": group.push_tmaps(rank).data_ptr(),
        "land_ptr": land.ptr,
        "peer_land_ptr": land.peer_ptrs.data_ptr(),
        "mc_land_ptr": land.multicast_ptr if mc else 0,
        "land_rows": group.land_rows,
        "rank": rank,
        "ws_ptr": ws.ptr,
        "flag_ptr": fl.ptr,
        "ar_ptr": ar.ptr if ar is not None else 0,
        "peer_ws_ptr": ws.peer_ptrs.data_ptr(),
        "peer_flag_ptr": fl.peer_ptrs.data_ptr(),
        "peer_ar_ptr": ar.peer_ptrs.data_ptr() if ar is not None else 0,
        "mc_ws_ptr": ws.multicast_ptr if mc else 0,
        "mc_ar_ptr": ar.multicast_ptr if (mc and ar is not None) else 0,
        "err_ptr": group.error_record_device_ptr(rank),
        "timeout_ns": timeout_ns,
        "rows_pad": group.rows_pad,
        "m_tiles_max": group.m_tiles_max,
    }


def kernel_arguments(kern: LoadedKernel, t: CallTensors, descriptors: Descriptors,
                     group=None, rank: int = 0, transport: str = "none",
                     timeout_ns: int = 0, streamk=None) -> dict:
    """The values of exactly `contract.kernel_params(arch, mode, schedule)` of `kern`, by name
    (the TMA operands are :func:`tma_operands`; a streamk kernel's error record is `streamk`'s,
    streamk_buffers.StreamKBuffers, and its workspace and flags come per launch)."""
    values = _tma_values(kern, tma_operands(kern, t, group, rank), descriptors, t.M)
    values.update({"m": t.M, "out_ptr": t.out.data_ptr()})
    if kern.mode != "none":
        values.update(_collective_values(group, rank, transport, timeout_ns))
    elif streamk is not None:
        values.update(streamk.values(timeout_ns))
    names = [name for name, _ in contract.kernel_params(kern.arch, kern.mode, kern.variant.schedule)]
    missing = [n for n in names if n not in values]
    if missing:  # a contract parameter this module does not know how to fill: a code bug
        raise InputError(f"no value for contract parameter(s) {missing} of {kern.entry.variant}")
    return {n: values[n] for n in names}
