#!/bin/bash
# For the next session on one H200 (written 2026-12-02, nineteenth session; NOT run). Build
# cache_gpu from HEAD first (README of this directory), carry it, run:
#   bash docs/results/2026-12-02_h200_nineteenth/next_h200.sh
# 1. Every GPU test + fuzz on HEAD (call 8 ran them on 510e041; what came after is host code).
# 2. swapabx past one wave of clusters (N > 8448 on an H200, not dispatched) and 3. at M 29..31:
#    call9.sh's sweeps (they ran as call 9; see the README).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 220 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
# 2-3. Sweeps: call9.sh ran them (with the budget left in this session); re-seed its shapes
#      (random.Random(1922) -> a new seed) and append its loops here for a fresh fit set.
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
