#!/bin/bash
# call 1 (2026-12-01, fifth session, one H200): the splitk decode schedule (new). Its GPU tests
# (mode none; rs/ar on virtual ranks TP 2/4/8), then mode none at small-N shapes against torch.mm:
# the committed dispatch against splitk at M's token tile with clusters of 2 and 4
# (choice_ab.py, 3 interleaved rounds, warm and cold weights: the worse ratio).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py -x > $R/t_splitk.log 2>&1
echo "splitk tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_splitk.log)"
grep -E "Error|assert|FAILED" $R/t_splitk.log | head -8
MS=1,16,32,64,128,192,256
for NK in 2048:5632 2048:2048 2048:8192 3584:2368 4096:2048 4096:7168 4096:14336 5120:1280 \
          7168:768 7168:2304; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 500 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS \
    --rules dispatch,splitk-c2,splitk-c4 --both-regimes --rounds 3 \
    --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/s_*.txt | grep "N=" | cut -c1-150
cd $OUT && tar czf r.tgz r && rm -rf r
