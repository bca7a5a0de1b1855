#!/bin/bash
# call 8 (tenth session, one H200): splitk with clusters of 2 at 57..64 W tiles from 56 k-tiles
# (chosen on call 7), held out at 6 random shapes (seed 20261214: N 3648..4096, K 3528..16384, one
# M per token tile 16 / 32 / 64): the dispatch (splitk there) against the decode kernel at M's
# token tile, each point alone (3 rounds).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for spec in 3712:8520:11:16 3712:8520:19:32 3712:8520:35:64 3840:6224:3:16 3840:6224:26:32 \
            3840:6224:36:64 3648:5448:4:16 3648:5448:18:32 3648:5448:59:64 3776:16280:3:16 \
            3776:16280:22:32 3776:16280:39:64 3776:4024:2:16 3776:4024:23:32 3776:4024:45:64 \
            3712:8672:15:16 3712:8672:23:32 3712:8672:44:64; do
  IFS=: read N K M BT <<< "$spec"
  timeout 40 python3 tools/probes/choice_ab.py --shapes $N:$K --ms $M \
    --rules dispatch,swapab${BT}c1 --both-regimes --rounds 3 \
    --json $R/held3_${N}_${K}_${M}.json 2>&1 | tail -1 | cut -c1-200
done
echo "held3 $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
