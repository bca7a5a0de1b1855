#!/bin/bash
# call 3 (2026-12-01, fourth session, one H200): issue 9's decode band (N = 7168, K 768/1536/
# 2304) re-timed without the sequential sweep's bias: every candidate of the tuning sweep, the
# table's choice (dispatch) and the fill rule, interleaved in random order (3 rounds, medians),
# warm and cold weights (tools/probes/choice_ab.py --both-regimes).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for K in 2304 768 1536; do
  timeout $(( 180 )) python3 tools/probes/choice_ab.py --shapes 7168:$K \
    --ms 16,32,64,128,192,256,320,384,448,512 --rules dispatch,fill,cands --both-regimes \
    --rounds 3 --json $R/ab_$K.json > $R/ab_$K.txt 2>&1
  echo "K=$K rc=$? $(( $(date +%s)-T0 ))s"; grep "N=" $R/ab_$K.txt
done
cd $OUT && tar czf r.tgz r && rm -rf r
