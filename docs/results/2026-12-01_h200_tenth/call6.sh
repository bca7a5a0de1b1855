#!/bin/bash
# call 6 (tenth session, one H200): the splitk bound for clusters of 2 at 36 k-tiles (chosen on
# calls 4 and 5), held out at 8 new random shapes (seed 20261213: N 1024..3584, K 1544..2752,
# one M per token tile 16 / 32 / 64): the dispatch, the decode kernel at M's token tile and
# splitk with clusters of 2, each point alone (5 rounds). Then 45 s of fuzz with this runtime
# (the kernels are call 4's, whose GPU tests passed).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for spec in 2176:2264:10:16 2176:2264:32:32 2176:2264:62:64 3392:1784:1:16 3392:1784:28:32 \
            3392:1784:46:64 2304:2752:4:16 2304:2752:18:32 2304:2752:33:64 1216:1752:7:16 \
            1216:1752:28:32 1216:1752:35:64 2112:1680:5:16 2112:1680:17:32 2112:1680:59:64 \
            1280:2240:4:16 1280:2240:24:32 1280:2240:40:64 1024:1928:14:16 1024:1928:23:32 \
            1024:1928:40:64 3072:1576:2:16 3072:1576:29:32 3072:1576:51:64; do
  IFS=: read N K M BT <<< "$spec"
  timeout 40 python3 tools/probes/choice_ab.py --shapes $N:$K --ms $M \
    --rules dispatch,swapab${BT}c1,splitk-c2 --both-regimes --rounds 5 \
    --json $R/held2_${N}_${K}_${M}.json 2>&1 | tail -1 | cut -c1-220
done
echo "held2 $(( $(date +%s)-T0 ))s"
timeout 100 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 45 --json $R/fuzz.json > $R/fuzz.txt 2>&1
echo "fuzz rc=$? $(( $(date +%s)-T0 ))s"; tail -2 $R/fuzz.txt
cd $OUT && tar czf r.tgz r && rm -rf r
