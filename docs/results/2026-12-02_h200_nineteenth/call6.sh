#!/bin/bash
# Nineteenth session, call 6 (one H200): with the committed dispatch (swapabx where rows are off
# the lines), what each row layout costs now (contiguous, W alone in 64-aligned rows, x alone,
# both, K padded), M 16..512: whether re-laying only the weight (what a serving layer can do once
# at load) is worth doing; and swapabx at M 16..32 (below its rule) against the dispatch at 5
# more shapes off the lines (a fit set for a later rule, not a held-out test).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 150 python3 tools/probes/row_layout.py --shapes 7168:2360,8192:3696,5120:1000,2048:4104 \
  --ms 16,32,64,128,160,256,512 --json $R/layout.json > $R/layout.txt 2>&1; echo "layout rc=$?"
timeout 100 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes \
  --rules dispatch,swapabx32c2,swapabx32c4 --shapes 5120:2360,6144:1000,7168:3696,8192:2360,6656:5000 \
  --ms 16,24,32 --json $R/small.json > $R/small.txt 2>&1; echo "small rc=$? $(grep -c '^N=' $R/small.txt) points"
cd $OUT && tar czf r.tgz r && rm -rf r
