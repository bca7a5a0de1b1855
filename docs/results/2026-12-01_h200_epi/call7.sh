#!/bin/bash
# call 7 (2026-12-01, sixth session, one H200): the splitk rule with clusters of 4 up to M = 192
# (token tiles 160 / 192), checked at 6 random shapes it was not fitted to (seed 20261204, N
# 1024..1920, K 2816..14336, M 129..192): the dispatch against the wave-fill rule without splitk
# (`fill`), 5 rounds, warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 1152:6144/151 1152:11456/155 1664:5696/171 1024:8896/138 1664:5760/177 1024:10432/180; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  timeout 40 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,fill \
    --both-regimes --rounds 5 --json $R/k_${N}_${K}_${MS}.json > $R/k_${N}_${K}_${MS}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/k_*.txt | grep "N=" | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
