#!/bin/bash
# call 2 (tenth session, one H200): every tuning candidate (tuning.candidates: tile, swapab,
# splitk with clusters of 2 / 4) at call 1's weak model points, mode none, warm and cold weights:
# N 4096 / 5120 / 2880 at M 1..64 (64 / 80 / 45 W tiles of 64 rows for 132 SMs), and three
# M = 128 points. Which kernel would fill the SMs, and does it pay warm as well as cold?
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
i=0
for S in 4096:1024,4096:1792 4096:2048,4096:3584 5120:1280,5120:2560 5120:3456,2880:1024,2880:2048; do
  i=$((i+1))
  timeout 150 python3 tools/probes/choice_ab.py --shapes $S --ms 1,16,32,64 \
    --rules dispatch,cands --both-regimes --rounds 3 --json $R/cands$i.json 2>&1 | tail -4 | cut -c1-220
  echo "cands$i $(( $(date +%s)-T0 ))s"
done
timeout 150 python3 tools/probes/choice_ab.py --shapes 5120:2560,2880:2048,8192:3696 --ms 128 \
  --rules dispatch,cands --both-regimes --rounds 3 --json $R/cands128.json 2>&1 | tail -3 | cut -c1-220
echo "cands128 $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
