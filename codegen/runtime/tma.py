"""TMA descriptors for row-major bf16 matrices (cuTensorMapEncodeTiled), as 128 raw bytes."""
from __future__ import annotations

import ctypes

from .driver import call, cuda

_SWIZZLE = {
    "none": "CU_TENSOR_MAP_SWIZZLE_NONE", "32B": "CU_TENSOR_MAP_SWIZZLE_32B",
    "64B": "CU_TENSOR_MAP_SWIZZLE_64B", "128B": "CU_TENSOR_MAP_SWIZZLE_128B",
}
L2_PROMOTIONS = {
    "none": "CU_TENSOR_MAP_L2_PROMOTION_NONE", "64B": "CU_TENSOR_MAP_L2_PROMOTION_L2_64B",
    "128B": "CU_TENSOR_MAP_L2_PROMOTION_L2_128B", "256B": "CU_TENSOR_MAP_L2_PROMOTION_L2_256B",
}
#: The L2 promotion every descriptor is encoded with (a key of L2_PROMOTIONS; probes set it).
L2_PROMOTION = "128B"


def tma_box(meta_tma: dict, operand: str) -> tuple[int, int]:
    """Box [inner(K), rows] of operand 'a' or 'b' from meta.json `tma`.

    Accepts `box: [64, rows]` and the contract's `box_rows` spelling (box inner dim 64).
    """
    t = meta_tma[operand]
    if "box" in t:
        inner, rows = t["box"]
        return int(inner), int(rows)
    return 64, int(t["box_rows"])


def encode_bf16_2d(ptr: int, rows: int, k: int, row_stride_bytes: int,
                   box: tuple[int, int], swizzle: str = "128B") -> bytes:
    """Descriptor of a row-major bf16 matrix [rows, k]: dims [k, rows], box [inner, box_rows].

    This is the encoding seen working on the H200 with DSL-compiled cubins (CUTEDSL-FACTS.md).
    """
    u64, u32 = cuda.cuuint64_t, cuda.cuuint32_t
    tmap = call(
        "cuTensorMapEncodeTiled",
        cuda.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        2,
        ptr,
        [u64(k), u64(rows)],
        [u64(row_stride_bytes)],  # rank-1 strides: the outer dimension's, in bytes
        [u32(box[0]), u32(box[1])],
        [u32(1), u32(1)],
        cuda.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(cuda.CUtensorMapSwizzle, _SWIZZLE[swizzle]),
        getattr(cuda.CUtensorMapL2promotion, L2_PROMOTIONS[L2_PROMOTION]),
        cuda.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    )
    return ctypes.string_at(int(tmap.getPtr()), 128)
