#!/bin/bash
export PYTHONPATH=. PYTHONUNBUFFERED=1 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
log() { echo "$(date +%T) $*" >> $R/times.txt; }
log start
timeout 120 python3 -m pytest -m gpu tests/gpu/test_narrow.py -q -x 2>&1 | tail -30 > $R/gpu_narrow.txt; log narrow
if grep -q " passed" $R/gpu_narrow.txt && ! grep -q "failed\|error" $R/gpu_narrow.txt; then
  timeout 200 python3 tools/bench_decode.py --ms 80,96,112,128,400 --ks 768,1536,2304 --both-regimes --tune-out $R/tune --json $R/sweep.json > $R/sweep.txt 2>&1; log sweep
  timeout 180 python3 -m pytest -m gpu tests/gpu -q 2>&1 | tail -15 > $R/gpu_all.txt; log gpuall
fi
cd $OUT && tar czf r.tgz r && rm -rf r
