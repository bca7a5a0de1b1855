#!/bin/bash
# Nineteenth session, call 8 (one H200): every GPU test + fuzz on HEAD (the swapabx rule from
# M 32, RowParallelLinear's re-laid weight (host code), the tuning sweep with swapabx); the
# mode-none tuning sweep at N 7168 K 2360 (rows off the lines) x M 64 / 160, which now times the
# swapabx kernels, writing its table.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 220 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
timeout 120 python3 tools/bench_decode.py --n 7168 --ks 2360 --ms 64,160 --both-regimes --rounds 3 \
  --tune-out $R/tune --json $R/sweep.json > $R/sweep.txt 2>&1; echo "sweep rc=$?"; tail -4 $R/sweep.txt
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
