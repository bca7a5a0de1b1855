"""Runtime: loads cached cubins with cuda-python and runs the fused GEMM + RS/AR op.

Needs only torch, numpy and cuda-python (never cutlass or jinja2), and reads the kernel cache
without writing to it.
"""
from .errors import CacheMissError, DriverError, InputError, KernelTimeoutError

__all__ = ["CacheMissError", "DriverError", "InputError", "KernelTimeoutError",
           "GemmRsAr", "VirtualGroup", "Group", "SymmetricBuffer", "weight_in_aligned_rows",
           "check_all_errors"]


def __getattr__(name):  # lazy: importing the package must stay cheap and torch-free
    if name == "GemmRsAr":
        from .op import GemmRsAr
        return GemmRsAr
    if name in ("VirtualGroup", "Group", "SymmetricBuffer"):
        from . import group
        return getattr(group, name)
    if name == "weight_in_aligned_rows":  # re-lay a weight once where K % 64 != 0 (mode none)
        from .tp_linear import weight_in_aligned_rows
        return weight_in_aligned_rows
    if name == "check_all_errors":  # every live op's records, no sync (graph-replay serving)
        from .health import check_all_errors
        return check_all_errors
    raise AttributeError(name)
