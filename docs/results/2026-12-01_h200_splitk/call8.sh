#!/bin/bash
# call 8 (2026-12-01, fifth session, one H200): the wave-fill rule's prices (dispatch.FILL_PRICE_*,
# fitted offline to calls 5/7 and the fourth session's sweeps, rule_regret.py) checked at shapes
# they were not fitted to: 16 random (N, K), M 129..512 (seed 20261202); here the 10 points where
# the priced rule (`fill`) and the rule before it (`fill-flat`) pick different kernels, 5
# interleaved rounds, warm and cold weights (the worse ratio).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 14976:2624/377 8064:11392/512 9728:4160/242 9984:2304/227 9216:8256/173 \
            9984:6272/226,492 7552:13184/489 9472:3712/248; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 240 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules fill-flat,fill \
    --both-regimes --rounds 5 --json $R/p_${N}_${K}.json > $R/p_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/p_*.txt | grep "N=" | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
