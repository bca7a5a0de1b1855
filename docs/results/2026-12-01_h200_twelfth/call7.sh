#!/bin/bash
# call 7 (twelfth session, one H200): the final rs/ar rule (choose_fused_by_fill weighs no wide
# kernel past N; call 6 measured it mixed on virtual ranks) with the rs/ar ragged wide kernels
# of call 6: test_ragged_n again, then 90 s of fuzz, whose cases now draw rs/ar's wide kernel
# at N = 64 mod 128 too (fixed seed). Carry as call 6.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/ && cp -r cache_rag2/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag2/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
timeout 60 python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py > $R/t_ragged.log 2>&1
echo "tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_ragged.log)"
grep -E "^E |FAILED" $R/t_ragged.log | head -8
timeout 120 python3 tools/fuzz_gpu.py --cases 100000 --seed 20261213 --budget-s 90 \
  --json $R/fuzz.json > $R/fuzz.txt 2>&1
echo "fuzz rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/fuzz.txt)"
grep -c "'cta_group': 2" $R/fuzz.txt
cd $OUT && gzip -9 -f r/t_ragged.log r/fuzz.json; tar czf r.tgz r && rm -rf r
