#!/bin/bash
# call 3 (2026-12-01, eighth session, one H200): device_check on the ragged-K change (every GPU
# test, with tests/gpu/test_ragged_k.py fixed to skip K below the splitk kernels' minimum, then
# fuzz_gpu.py, whose cases now draw K no multiple of 64 a quarter of the time; 100 s).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
bash tools/device_check.sh --fuzz-s 100 --out $R/dc
echo "device_check rc=$?"
grep -E "passed|failed" $R/dc/*.log | tail -3
grep -E "^E |FAILED" $R/dc/*.log | head -12
cd $OUT && tar czf r.tgz r && rm -rf r
