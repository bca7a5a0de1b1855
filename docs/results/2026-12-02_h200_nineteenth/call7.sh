#!/bin/bash
# Nineteenth session, call 7 (one H200): the swapabx rule's lower M bound moved from 33 to 25
# (token tile 32; from calls 3 and 6: clusters of 2 won at M 32 at every N >= 5120 measured)
# held out against the dispatch without swapabx (`noswapabx`) at 12 fresh random shapes (seed
# 1921: N 5120..8448 a multiple of 64, K % 64 != 0) x M 25 / 28 / 32 (25, 28: seed 1921).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,noswapabx \
  --shapes $2 --ms 25,28,32 --json $R/$3.json > $R/$3.txt 2>&1; echo "$3 rc=$? $(grep -c '^N=' $R/$3.txt) points"; }
run 100 7616:12080,5120:8600,5760:11912,7936:11472,6912:1048,5824:8624 m1
run 100 5248:11400,5952:13464,5312:8184,8448:4616,5312:5624,7680:10888 m2
cd $OUT && tar czf r.tgz r && rm -rf r
