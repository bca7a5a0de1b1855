#!/bin/bash
# call 5 (tenth session, one H200): the same cache_gpu as call 4 (restored decode kernels), the
# runtime with the splitk bound for clusters of 2 back at 44 k-tiles. (a) Held out: 8 random
# shapes (seed 20261212, N 1024..3584, K 1544..2752, 3 M each in 1..64) where the new rule takes
# the decode kernel and the old one (25 k-tiles) took splitk: dispatch against splitk-c2 (the old
# pick). (b) Call 1's model shapes again, the dispatch against torch.mm (before / after).
# (c) Issue 9's mode-none band (N 7168, K 768 / 1536 / 2304, M 16..512).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for spec in 2112:2160:13,21,37 3008:2648:2,11,17 2496:2488:30,49,64 2176:2736:13,56,63 \
            2752:2088:13,40,43 1344:2688:9,23,44 2560:1800:1,19,31 1408:1568:14,15,34; do
  IFS=: read N K MS <<< "$spec"
  timeout 60 python3 tools/probes/choice_ab.py --shapes $N:$K --ms $MS --rules dispatch,splitk-c2 \
    --both-regimes --rounds 5 --json $R/held_${N}_${K}.json 2>&1 | tail -3 | cut -c1-200
done
echo "held $(( $(date +%s)-T0 ))s"
S1=4096:2048,4096:7168,4096:1024,4096:3584,4096:512,4096:1792
S2=8192:4096,8192:14336,8192:2048,8192:7168,8192:1024,8192:3584,8192:3696
S3=5120:2560,5120:13824,5120:1280,5120:6912,5120:640,5120:3456
S4=16384:2048,16384:6656,2880:2048,2880:1024,2880:512
i=0
for S in $S1 $S2 $S3 $S4; do
  i=$((i+1))
  timeout 120 python3 tools/probes/choice_ab.py --shapes $S --ms 1,16,32,64,128,256,512 \
    --rules dispatch --both-regimes --rounds 3 --json $R/models$i.json 2>&1 | tail -1 | cut -c1-160
done
echo "models $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/choice_ab.py --shapes 7168:768,7168:1536,7168:2304 \
  --ms 16,32,64,96,128,160,192,256,320,384,448,512 --rules dispatch --both-regimes --rounds 3 \
  --json $R/band.json 2>&1 | tail -2 | cut -c1-160
echo "band $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
