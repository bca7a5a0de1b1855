#!/bin/bash
# call 8 (2026-12-01, eighth session, one H200): N any multiple of 64 (only the kernels whose W
# tiles fit N; decode sizes only where no tile width divides it): device_check.sh on the final
# code: every GPU test (tests/gpu/test_ragged_n.py new) and 70 s of fuzz, whose cases now draw N
# no multiple of 128 a fifth of the time (and ragged K, strided views as before).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 120 python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py > $R/t_ragged_n.log 2>&1
echo "ragged N tests rc=$?: $(tail -1 $R/t_ragged_n.log)"
grep -E "^E |FAILED" $R/t_ragged_n.log | head -8
bash tools/device_check.sh --fuzz-s 70 --out $R/dc
echo "device_check rc=$?"
grep -E "^E |FAILED" $R/dc/*.log | head -12
gzip -9 $R/dc/*.log $R/*.log
cd $OUT && tar czf r.tgz r && rm -rf r
