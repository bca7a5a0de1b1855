#!/bin/bash
# call 5 (2026-12-01, sixth session, one H200): the final state. device_check (every GPU test,
# 90 s of fuzz); the decode tests twice more (a race shows as a moving error); then the fifth
# session's random shapes (call 7 there: 20 (N, K) x 3 M) at the 12 points where the rule now
# picks cta_group 3: the dispatch against the rule without it, 5 rounds, warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 90 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
for i in 1 2; do
  timeout 100 python3 -m pytest -q -m gpu tests/gpu/test_swapab.py -k "none" > $R/t_none_$i.log 2>&1
  echo "swapab none tests run $i rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_none_$i.log)"
done
for SPEC in 6272:1088/306 5888:13312/425 10752:9536/166 11008:9984/195 9984:7680/249 \
            6016:3456/461 12032:11264/364 9344:3328/232 15104:7232/322 6144:2368/422 \
            12544:8192/178,382; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 520 ] || break
  timeout 40 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,fill-cg12 \
    --both-regimes --rounds 5 --json $R/g_${N}_${K}.json > $R/g_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/g_*.txt | grep "N=" | cut -c1-200
cd $OUT && gzip -9 -f r/dc/*.log; tar czf r.tgz r && rm -rf r
