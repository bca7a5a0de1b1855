#!/bin/bash
# call 3 (2026-12-01, seventh session, one H200): the splitk spread clause of the rule
# (dispatch.choose_splitk: clusters of 2 at token tile 128 for M 129..512 where every (W tile,
# token tile) pair gets a cluster at once) held out: the rule with it (`fillk`) against the rule
# without it (`fillk-nospread`) at 14 random shapes where they differ (seed 20261206; N
# 1024..2048, K 3072..14208, M 144..384), 5 rounds, warm and cold; then device_check (every GPU
# test, 60 s of fuzz) on this commit.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 1280:6016/373 1664:3072/144 1152:7296/231 1408:10560/295 1408:3712/201 \
            1536:9536/252 1024:14208/291 1280:3840/314 1664:7168/210 1024:5504/384 \
            1920:11136/239 1408:3776/171 2048:11840/235 1280:13120/221; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 200 ] || break
  timeout 40 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules fillk,fillk-nospread \
    --both-regimes --rounds 5 --json $R/h_${N}_${K}.json > $R/h_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
bash tools/device_check.sh --fuzz-s 60 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
cd $OUT && gzip -9 -f r/dc/*.log; tar czf r.tgz r && rm -rf r
