#!/bin/bash
# call 6 (2026-12-01, eighth session, one H200): the final code. (1) The lowered splitk bound
# (dispatch.SPLITK_MIN_K_TILES 44 -> 32) at the small N it also moves and call 5 did not fit
# (N 1024 / 1536 / 1920, K 2048 / 2752): the dispatch (now splitk with clusters of 2) against
# the old picks (swapab16c1 at M 1 / 16, swapab64c1 at M 64), warm and cold, 3 rounds;
# (2) device_check.sh (every GPU test, fuzz 90 s).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for NK in 1024:2048 1024:2752 1536:2048 1536:2752 1920:2048 1920:2752; do
  N=${NK%:*}; K=${NK#*:}
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,64 \
    --rules dispatch,swapab16c1,swapab64c1 --both-regimes --rounds 3 \
    --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"; cut -c1-150 $R/s_${N}_${K}.txt
done
bash tools/device_check.sh --fuzz-s 90 --out $R/dc
echo "device_check rc=$?"
grep -E "^E |FAILED" $R/dc/*.log | head -12
cd $OUT && tar czf r.tgz r && rm -rf r
