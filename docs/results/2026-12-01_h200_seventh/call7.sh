#!/bin/bash
# call 7 (2026-12-01, seventh session, one H200): the final rule (the splitk spread clause and
# the tie-break) at call 1's 14 shapes x 10 M (the same points, so before / after compare), warm
# and cold, 3 rounds; then device_check (every GPU test, 60 s of fuzz) on the final commit.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for NK in 1152:12352 7680:10688 1280:768 11392:13952 7424:7744 16000:9792 3968:2240 \
          9600:13952 10112:11200 12160:1728 16128:10752 12160:4736 3328:9536 1408:7040; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 250 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,48,96,128,176,256,336,448,512 \
    --rules dispatch --both-regimes --rounds 3 --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
bash tools/device_check.sh --fuzz-s 60 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
cd $OUT && gzip -9 -f r/dc/*.log; tar czf r.tgz r && rm -rf r
