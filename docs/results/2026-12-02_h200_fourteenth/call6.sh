#!/bin/bash
# call 6 (fourteenth session, one H200): mode none on sm_90a at N any multiple of 8 (before: of
# 64; contract.N_MULTIPLE_NONE): a runtime change only (the tile kernels and the wide decode
# kernels already reach past N, their stores masked per 16-byte vector); kernels as in call 3.
# Every GPU test (new: test_none_n_a_multiple_of_8, N 8 / 24 / 1000 / 4000 / 7176, a guard row
# past each output) and 25 s of fuzz (it now draws mode-none N no multiple of 64).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 220 bash tools/device_check.sh --fuzz-s 25 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
grep -E "multiple_of_8|FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
