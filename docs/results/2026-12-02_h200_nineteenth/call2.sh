#!/bin/bash
# Nineteenth session, call 2 (one H200): the swapabx kernels (the cta_group 1 decode kernel in
# clusters of 2 / 4 sharing each x tile by TMA multicast), first their GPU tests, then timed
# against the cta_group 1 kernel at the same token tile, torch.mm and the dispatch, at K off
# the 128-byte lines (2360, 4104, 3696) and on them (2304), warm and cold weights.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_swapabx.py -x > $R/tests.txt 2>&1
echo "swapabx tests rc=$? $(tail -1 $R/tests.txt)"
grep -E "^(FAILED|ERROR)|Error" $R/tests.txt | head -10
S=7168:2360,7168:2304,4096:4104,8192:3696
for bt in 64 128 160 256; do
  m=$bt; [ $bt = 256 ] && m=256,512
  timeout 100 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --shapes $S --ms $m \
    --rules dispatch,swapab${bt}c1,swapabx${bt}c2,swapabx${bt}c4 --json $R/bt$bt.json > $R/bt$bt.txt 2>&1
  echo "bt$bt rc=$? $(grep -c '^N=' $R/bt$bt.txt) points"
done
cd $OUT && tar czf r.tgz r && rm -rf r
