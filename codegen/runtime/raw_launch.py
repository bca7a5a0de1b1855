"""cuLaunchKernelEx called through its driver function pointer with a prebuilt C config.

cuda-python converts its CUlaunchConfig object into the C struct on every call, which costs
several microseconds per eager launch. Here the C struct (and its cluster and programmatic-
launch attributes) is built once per (kernel, grid, stream) in ctypes memory and the driver
entry point is called directly.

The layout is not trusted blindly: each struct is compared, field by field, with the C struct
cuda-python itself builds for the same launch (`getPtr()` is the address it hands the driver).
Any difference, or no function pointer, and :func:`raw_config` returns None: the caller then
launches through cuda-python as before.
"""
from __future__ import annotations

import ctypes
import threading

from .driver import cuda

_CUDA_VERSION_OF_LAUNCH_EX = 12000  # cuLaunchKernelEx appeared in CUDA 12.0
_CLUSTER_DIMENSION = int(cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
_PROGRAMMATIC = int(cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)


class _LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute: id, padding to 8 bytes, a 64-byte value union."""

    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint * 16)]


class _LaunchConfig(ctypes.Structure):
    """CUlaunchConfig (cuda.h)."""

    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint),
                ("gridDimZ", ctypes.c_uint), ("blockDimX", ctypes.c_uint),
                ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.c_void_p), ("numAttrs", ctypes.c_uint)]


_LAUNCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p)
_fn = None
_fn_lock = threading.Lock()


def launch_function():
    """The driver's cuLaunchKernelEx as a ctypes function, or None where it cannot be had."""
    global _fn
    with _fn_lock:
        if _fn is None:
            try:
                flags = cuda.CUdriverProcAddress_flags.CU_GET_PROC_ADDRESS_DEFAULT
                err, pfn, _status = cuda.cuGetProcAddress(b"cuLaunchKernelEx",
                                                          _CUDA_VERSION_OF_LAUNCH_EX, flags)
                ok = err == cuda.CUresult.CUDA_SUCCESS and int(pfn) != 0
                _fn = _LAUNCH_FN(int(pfn)) if ok else False
            except Exception:  # an old binding without cuGetProcAddress: cuda-python's call
                _fn = False
        return _fn or None


class RawConfig:
    """A launch config in C memory: pass :attr:`address` to the function of launch_function().

    Holds its attribute array alive. Build with :func:`raw_config`.
    """

    def __init__(self, cfg: _LaunchConfig, attrs):
        self._cfg, self._attrs = cfg, attrs
        self.address = ctypes.addressof(cfg)


def _same_as_bindings(ours: _LaunchConfig, theirs) -> bool:
    """Whether every field of our struct equals the struct cuda-python built (`theirs`)."""
    base = int(theirs.getPtr())
    fields_end = _LaunchConfig.hStream.offset + ctypes.sizeof(ctypes.c_void_p)
    if ctypes.string_at(ctypes.addressof(ours), fields_end) != ctypes.string_at(base, fields_end):
        # the seven dims/smem words, the padding ctypes and C both insert, and the stream
        return False
    their_num = ctypes.c_uint.from_address(base + _LaunchConfig.numAttrs.offset).value
    if their_num != ours.numAttrs or their_num != int(theirs.numAttrs):
        return False
    for i in range(their_num):
        mine = ctypes.cast(ours.attrs, ctypes.POINTER(_LaunchAttribute))[i]
        t = int(theirs.attrs[i].getPtr())
        if ctypes.c_int.from_address(t).value != mine.id:
            return False
        value_at = t + _LaunchAttribute.value.offset
        if ctypes.string_at(value_at, 12) != bytes(mine.value)[:12]:  # clusterDim x, y, z / the flag
            return False
    return True


def raw_config(binding_cfg) -> RawConfig | None:
    """The C twin of a cuda-python CUlaunchConfig (grid, block, smem, stream, cluster attrs),
    or None if its layout cannot be confirmed against the binding's own struct."""
    try:
        n = int(binding_cfg.numAttrs)
        attrs = (_LaunchAttribute * max(n, 1))()
        for i in range(n):
            a = binding_cfg.attrs[i]
            attrs[i].id = int(a.id)
            if int(a.id) == _CLUSTER_DIMENSION:
                dim = a.value.clusterDim
                attrs[i].value[0], attrs[i].value[1], attrs[i].value[2] = dim.x, dim.y, dim.z
            elif int(a.id) == _PROGRAMMATIC:
                attrs[i].value[0] = int(a.value.programmaticStreamSerializationAllowed)
            else:  # the only attributes this twin knows
                return None
        cfg = _LaunchConfig(
            binding_cfg.gridDimX, binding_cfg.gridDimY, binding_cfg.gridDimZ,
            binding_cfg.blockDimX, binding_cfg.blockDimY, binding_cfg.blockDimZ,
            binding_cfg.sharedMemBytes, int(binding_cfg.hStream) or None,
            ctypes.addressof(attrs) if n else None, n)
        if not _same_as_bindings(cfg, binding_cfg):
            return None
        return RawConfig(cfg, attrs)
    except Exception:  # any surprise in the binding's structs: use the binding's call
        return None
