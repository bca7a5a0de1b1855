#!/bin/bash
# call 6 (2026-12-01, seventh session, one H200): the tie-break as committed (only between wide
# decode options, and only for 1.1x the busy SMs or more: dispatch.FILL_BUSY_MARGIN, fitted on
# call 5) held out: `fillk` against `fillk-first` at the first 16 of the 40 random points of 1500
# (seed 20261208) where they differ, 5 rounds, warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 12032:2688/143 10752:3264/114 4992:9152/477 11520:5120/127 9856:5120/141 \
            9728:8320/118 4864:6912/446 5888:5056/234 9344:7616/120 9728:6528/139 \
            8960:6784/143 11776:5568/113 11008:2688/138 11904:11648/129 4352:5248/393 \
            11136:9984/138; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 300 ] || break
  timeout 40 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules fillk,fillk-first \
    --both-regimes --rounds 5 --json $R/b_${N}_${K}_${MS}.json > $R/b_${N}_${K}_${MS}.txt 2>&1
  echo "N=$N K=$K M=$MS rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
