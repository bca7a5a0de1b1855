#!/bin/bash
# call 4 (2026-12-01, fifth session, one H200): the committed splitk rule (dispatch.choose_splitk,
# fitted to call 3) against the wave-fill rule without it, at the calibration shapes and at
# shapes it was not fitted to (held out), 5 interleaved rounds, warm and cold weights (the worse
# ratio); first the splitk GPU tests again (a dispatch test added).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 120 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py > $R/t_splitk.log 2>&1
echo "splitk tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_splitk.log)"
grep -E "^E |FAILED" $R/t_splitk.log | head -8
MS=1,8,16,32,48,64,96,128,160
for NK in 1024:4096 1536:4096 2048:5632 2560:4096 3072:3072 \
          1280:8192 1792:4096 1024:14336 2048:8192 3072:8192 2048:3072 1536:3072 2560:3072; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 420 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS \
    --rules fill,dispatch --both-regimes --rounds 5 \
    --json $R/v_${N}_${K}.json > $R/v_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/v_*.txt | grep "N=" | cut -c1-150
cd $OUT && tar czf r.tgz r && rm -rf r
