#!/bin/bash
# call 9 (2026-12-01, seventh session, one H200): fuzz on the final commit (its rs/ar cases
# dispatch by dispatch.choose_fused_by_fill now: wide kernels at small N), 120 s, a new seed.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 170 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 120 --seed 20261209 > $R/fuzz.log 2>&1
echo "fuzz rc=$? $(( $(date +%s)-T0 ))s: $(tail -2 $R/fuzz.log | tr '\n' ' ')"
grep -iE "fail|wrong" $R/fuzz.log | head -5
cd $OUT && gzip -9 -f r/fuzz.log; tar czf r.tgz r && rm -rf r
