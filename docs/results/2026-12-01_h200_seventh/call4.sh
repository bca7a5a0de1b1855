#!/bin/bash
# call 4 (2026-12-01, seventh session, one H200): every candidate of the tuning sweep (`cands`:
# tile at each width and CTA group, swapab at each token tile and cta_group, splitk at each
# token tile and cluster size K allows) and the dispatch, at the points call 1 left below 0.9x
# that the spread clause does not reach: the memory-bound M = 128 points at large N (N 9600 K
# 13952, N 10112 K 11200, N 12160 K 1728), N 3968 K 2240 M 48, N 1152 K 12352 M 448, and issue
# 9's N 7168 K 768 M 496 / 512; warm and cold weights, 3 rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 9600:13952/128 10112:11200/128 12160:1728/128 3968:2240/48 1152:12352/448 \
            7168:768/496,512; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 400 ] || break
  timeout 150 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,cands \
    --both-regimes --rounds 3 --json $R/c_${N}_${K}.json > $R/c_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
