#!/bin/bash
# call 3 (2026-12-01, ninth session, one H200): call 2 showed the stream-K grids that split
# tiles 1.2x-1.7x slower than grids of whole tiles. Two diagnostic builds of the stream-K
# kernels (cache_dx_*: never shipped): without the two gpu-scope fences of the fix-up
# (nofence), and without any fix-up (nofix: every part stores its own product; wrong sums,
# timing only); the real kernels (cache_gpu) in between.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
for ROOT in cache_gpu cache_dx_nofence cache_dx_nofix cache_gpu; do
  echo "== $ROOT"
  CODEGEN_CACHE_DIR=$ROOT python3 tools/probes/streamk_budget.py --shapes 5120:2560,7168:2304 --ms 16,128 \
    --budgets 80,112,132 --rounds 2 --time-wrong --json $R/b_${ROOT}.json 2>&1 | grep -v WRONG
done
cd $OUT && tar czf r.tgz r && rm -rf r
