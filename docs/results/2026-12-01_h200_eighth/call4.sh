#!/bin/bash
# call 4 (2026-12-01, eighth session, one H200): every candidate of the tuning sweep (`cands`)
# and the dispatch at call 1's weakest model points: Qwen2.5-32B (N 5120: K 2560 M 64 / 128,
# K 13824 M 256 / 512, K 3456 M 64) and Qwen2.5-7B (N 3584: K 9472 M 512, K 2368 M 1 / 64);
# warm and cold weights, 3 rounds. Is there a better kernel the rules miss?
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 5120:2560/64,128 5120:13824/256,512 3584:9472/512 3584:2368/1,64 5120:3456/64; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 450 ] || break
  timeout 150 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,cands \
    --both-regimes --rounds 3 --json $R/c_${N}_${K}.json > $R/c_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"; cat $R/c_${N}_${K}.txt | cut -c1-160
done
cd $OUT && tar czf r.tgz r && rm -rf r
