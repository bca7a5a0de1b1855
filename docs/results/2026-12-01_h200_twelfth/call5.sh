#!/bin/bash
# call 5 (twelfth session, one H200): a longer shake-out of the committed runtime (131abab) with
# its kernels (cache_gpu + cache_rag merged, as calls 1-4): every GPU test and 120 s of fuzz
# with programmatic dependent launch on (device_check.sh --pdl; PDL is off by default and its
# last full run was the first session of 2026-12-01), then 150 s more fuzz with it off (fixed
# seed, so a failure reruns with --seed S --cases 1).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
bash tools/device_check.sh --pdl --fuzz-s 120 --out $R/dcpdl > $R/dcpdl.txt 2>&1; tail -4 $R/dcpdl.txt
echo "pdl $(( $(date +%s)-T0 ))s"
timeout 200 python3 tools/fuzz_gpu.py --cases 100000 --seed 20261212 --budget-s 150 \
  --json $R/fuzz_off.json > $R/fuzz_off.txt 2>&1; tail -3 $R/fuzz_off.txt
echo "fuzz $(( $(date +%s)-T0 ))s"
gzip -r $R/dcpdl 2>/dev/null; gzip $R/fuzz_off.json 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
