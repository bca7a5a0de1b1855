#!/bin/bash
# call 8 (2026-12-01, sixth session, one H200): device_check on the final commit (the splitk
# rule with clusters of 4 up to M = 192; every GPU test, 60 s of fuzz).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 60 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
cd $OUT && gzip -9 -f r/dc/*.log; tar czf r.tgz r && rm -rf r
