"""Checked CUDA driver calls through cuda-python (no JIT, no cutlass).

Importing this module never touches the driver library, so CPU-only machines can import the
runtime; the first real call loads libcuda.
"""
from __future__ import annotations

import contextlib

try:  # cuda-python >= 12.6 layout
    from cuda.bindings import driver as cuda
except ImportError:  # pragma: no cover - old cuda-python
    from cuda import cuda  # type: ignore[no-redef]

from .errors import DriverError

_SUCCESS = cuda.CUresult.CUDA_SUCCESS


def _error_name(err) -> str:
    try:
        res, name = cuda.cuGetErrorName(err)
        if res == _SUCCESS and name:
            return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # the name is only decoration; never mask the real error
        pass
    return getattr(err, "name", str(err))


def check(call: str, result):
    """Unpack a cuda-python result tuple `(CUresult, *values)`; raise DriverError on failure."""
    if isinstance(result, tuple):
        err, values = result[0], result[1:]
    else:
        err, values = result, ()
    if err != _SUCCESS:
        raise DriverError(call, int(err), _error_name(err))
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def call(name: str, *args):
    """`cuda.<name>(*args)`, checked; returns the call's value(s)."""
    return check(name, getattr(cuda, name)(*args))


_initialised = False


def ensure_context(device_index: int):
    """Make torch's primary context of `device_index` current on this thread and return it.

    Call it with `device_index` already torch's current device (inside `torch.cuda.device`).
    Kernels from cuKernelGetFunction belong to the current context, and launches on torch
    streams need torch's context, which is the device's primary context.
    """
    global _initialised
    import torch

    torch.cuda.init()
    torch.cuda.current_device()
    if not _initialised:
        call("cuInit", 0)
        _initialised = True
    dev = call("cuDeviceGet", device_index)
    # Retaining creates the primary context if torch has not touched the device yet; it is the
    # same context the runtime API (and so torch) uses. Never released: it lives with the process.
    ctx = call("cuDevicePrimaryCtxRetain", dev)
    current = call("cuCtxGetCurrent")
    if current is None or int(current) != int(ctx):
        call("cuCtxSetCurrent", ctx)
    return ctx


def device_attribute(attr_name: str, device_index: int) -> int:
    """cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_<attr_name>)."""
    attr = getattr(cuda.CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + attr_name)
    dev = call("cuDeviceGet", device_index)
    return int(call("cuDeviceGetAttribute", attr, dev))


@contextlib.contextmanager
def capture_relaxed():
    """This thread's stream-capture mode relaxed inside the block (restored after:
    cuThreadExchangeStreamCaptureMode), so a call that is not allowed in a global-mode CUDA-graph
    capture (cudaMalloc, a module load) may run while the thread captures. Only for work that
    is not part of the graph: a kernel load, buffers allocated and zeroed on a stream no capture
    involves."""
    old = call("cuThreadExchangeStreamCaptureMode",
               cuda.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
    try:
        yield
    finally:
        call("cuThreadExchangeStreamCaptureMode", old)


def stream_capturing(handle: int) -> bool:
    """Whether the stream `handle` (a cudaStream_t as int) is capturing a CUDA graph now."""
    status = call("cuStreamIsCapturing", cuda.CUstream(int(handle)))
    return status == cuda.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
