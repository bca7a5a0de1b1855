#!/bin/bash
# call 5 (2026-12-01, seventh session, one H200): the wave-fill rule's tie-break (of equally
# priced options the one that keeps the most SMs busy, dispatch.fill_busy; call 4 found it at
# the memory-bound M = 128 points: 192-row W tiles x 2 token tiles of 64 on 100 CTAs beat
# 128-row W tiles x 1 token tile of 128 on 75 by 1.07x-1.12x) held out: `fillk` against
# `fillk-first` (the first of the tied options, as before) at the 15 random points of 400
# (seed 20261207) where they differ, 5 rounds, warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 4864:832/87 6144:9600/272 10752:9984/116 5120:13568/92 4864:8192/470 \
            11136:9920/130 4736:10112/81 3968:7808/91 7168:11008/412 12672:768/139 \
            11136:9280/121 8320:6528/389 4992:576/385 10368:9088/129 4224:14336/94; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 300 ] || break
  timeout 40 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules fillk,fillk-first \
    --both-regimes --rounds 5 --json $R/b_${N}_${K}_${MS}.json > $R/b_${N}_${K}_${MS}.txt 2>&1
  echo "N=$N K=$K M=$MS rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
