"""TMA store probe (sm_90a): a descriptor in global memory (generic address) against one passed as
a kernel parameter, and row coordinates that are negative or run past the tensor's end.

Why it exists: the pushed partial stores of the tile kernels (KERNEL-CONTRACT.md) first used
negative row coordinates for a box straddling two owners' chunks; on the H200 that is an
illegal instruction (CUDA_ERROR_ILLEGAL_INSTRUCTION), with either kind of descriptor, while a
box that runs past the end is clipped. Result of 2026-11-30: docs/results/2026-11-30_x2_push/
tma_store_probe.txt.

    nvcc -arch=sm_90a -cubin -o out/tma_store_probe.cubin tools/probes/tma_store_probe.cu
    # on the GPU machine (carry out/):
    python3 tools/probes/tma_store_probe.py out/tma_store_probe.cubin

One case per process (an illegal instruction kills the context). Prints, per case, the rows of
a 100-row tensor (guard rows around it) that the 128-row box wrote.
"""
import ctypes, subprocess, sys
import numpy as np
from cuda.bindings import driver as cu

def chk(r):
    err = r[0] if isinstance(r, tuple) else r
    if int(err) != 0:
        raise RuntimeError(f"CUDA error {err}")
    return r[1:] if isinstance(r, tuple) and len(r) > 2 else (r[1] if isinstance(r, tuple) and len(r) == 2 else None)

def case(kind, c0, c1, fence):
    chk(cu.cuInit(0))
    dev = chk(cu.cuDeviceGet(0))
    ctx = chk(cu.cuDevicePrimaryCtxRetain(dev))
    chk(cu.cuCtxSetCurrent(ctx))
    mod = chk(cu.cuModuleLoad(CUBIN.encode()))
    N, R, G = 64, 100, 200            # cols, tensor rows, guard rows before/after
    total = (G + R + G) * N
    host = np.full(total, 0xFFFF, dtype=np.uint16)
    dbuf = chk(cu.cuMemAlloc(total * 2)); chk(cu.cuMemcpyHtoD(dbuf, host.ctypes.data, total * 2))
    base = int(dbuf) + G * N * 2
    tmap = chk(cu.cuTensorMapEncodeTiled(cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base,
        [cu.cuuint64_t(N), cu.cuuint64_t(R)], [cu.cuuint64_t(N * 2)], [cu.cuuint32_t(32), cu.cuuint32_t(128)],
        [cu.cuuint32_t(1), cu.cuuint32_t(1)], cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B, cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
    raw = ctypes.string_at(int(tmap.getPtr()), 128)
    if kind == "g":
        ddesc = chk(cu.cuMemAlloc(256)); addr = (int(ddesc) + 127) // 128 * 128
        chk(cu.cuMemcpyHtoD(addr, raw, 128))
        f = chk(cu.cuModuleGetFunction(mod, b"store_gdesc"))
        args = [ctypes.c_uint64(addr), ctypes.c_int(c0), ctypes.c_int(c1), ctypes.c_int(fence)]
    else:
        f = chk(cu.cuModuleGetFunction(mod, b"store_pdesc"))
        args = [ctypes.create_string_buffer(raw, 128), ctypes.c_int(c0), ctypes.c_int(c1)]
    ptrs = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])
    chk(cu.cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, None, ctypes.addressof(ptrs), 0))
    r = cu.cuCtxSynchronize()
    if int(r[0]) != 0:
        print(f"{kind} c=({c0},{c1}) fence={fence}: ERROR {r[0]}"); return
    chk(cu.cuMemcpyDtoH(host.ctypes.data, dbuf, total * 2))
    rows = host.reshape(-1, N)
    written = [i - G for i in range(rows.shape[0]) if (rows[i] != 0xFFFF).any()]
    rng = (written[0], written[-1], len(written)) if written else None
    cols = [j for j in range(N) if (rows[:, j] != 0xFFFF).any()]
    print(f"{kind} c=({c0},{c1}) fence={fence}: rows written (first, last, count) {rng} "
          f"cols {cols[0] if cols else None}..{cols[-1] if cols else None}")

CUBIN = sys.argv[1] if len(sys.argv) > 1 else "out/tma_store_probe.cubin"
if len(sys.argv) > 2:
    case(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])); sys.exit(0)
for c in [("p", 0, 0, 0), ("g", 0, 0, 0), ("g", 0, 0, 1), ("p", 32, -64, 0), ("g", 32, -64, 1), ("g", 0, 50, 1), ("g", 0, -200, 1), ("p", 0, 50, 0)]:
    out = subprocess.run([sys.executable, __file__, CUBIN, *map(str, c)], capture_output=True,
                         text=True)
    print((out.stdout + out.stderr).strip()[-400:])
