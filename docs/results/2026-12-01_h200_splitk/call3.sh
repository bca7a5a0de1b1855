#!/bin/bash
# call 3 (2026-12-01, fifth session, one H200): splitk with the occupancy-limited grid (30
# clusters of 4 on this H200, call 2): mode none at small N against torch.mm, the wave-fill rule
# without splitk (`fill`) against splitk at M's token tile with clusters of 2 and 4 and the
# dispatch with the K-aware rule (choice_ab.py, 3 rounds, warm and cold weights: the worse
# ratio); then device_check (every GPU test, 40 s of fuzz).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
MS=1,16,32,64,96,128,192,256
for NK in 1024:4096 1536:4096 2048:2048 2048:5632 2560:4096 3072:3072 3584:2368 4096:2048 \
          4096:14336 1536:1024; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 200 ] || break
  timeout 40 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS \
    --rules fill,splitk-c2,splitk-c4,dispatch --both-regimes --rounds 3 \
    --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/s_*.txt | grep "N=" | cut -c1-170
bash tools/device_check.sh --fuzz-s 40 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
grep -E "FAILED|Error" $R/dc/gpu_tests.log | head -10
cd $OUT && gzip -9 -f r/dc/*.log; tar czf r.tgz r && rm -rf r
