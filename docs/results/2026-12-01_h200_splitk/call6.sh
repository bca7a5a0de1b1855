#!/bin/bash
# call 6 (2026-12-01, fifth session, one H200): the final state: device_check (every GPU test,
# 60 s of fuzz), then the splitk GPU tests three more times (a race shows as a moving error).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 60 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
for i in 1 2 3; do
  timeout 120 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py > $R/t_splitk_$i.log 2>&1
  echo "splitk tests run $i rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_splitk_$i.log)"
done
cd $OUT && gzip -9 -f r/dc/*.log; tar czf r.tgz r && rm -rf r
