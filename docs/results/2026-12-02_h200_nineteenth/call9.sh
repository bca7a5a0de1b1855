#!/bin/bash
# Nineteenth session, call 9 (one H200): parts 2-3 of next_h200.sh with what the device budget
# left (no GPU tests: call 8 ran them): swapabx past one wave of clusters (N 8512..16384, seed
# 1922) and at M 29..31, against the dispatch; a fit set, nothing dispatched from it.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
# (device_check skipped: call 8 ran it on 510e041)
S=$(python3 -c "
import random; rng = random.Random(1922); out = []
while len(out) < 8:
    N, K = 64 * rng.randint(133, 256), 8 * rng.randint(125, 2000)
    if K % 64: out.append(f'{N}:{K}')
print(','.join(out))")
for bt in 64 96 160 192; do
  m=$bt; [ $bt = 64 ] && m=48; [ $bt = 160 ] && m=144
  timeout 40 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --shapes $S --ms $m \
    --rules dispatch,swapabx${bt}c2,swapabx${bt}c4 --json $R/past$bt.json > $R/past$bt.txt 2>&1
  echo "past$bt rc=$? $(grep -c '^N=' $R/past$bt.txt) points"
done
timeout 40 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,swapabx32c2,swapabx32c4 \
  --shapes 7168:2360,6144:4136,8192:3696,5120:8600,7680:10888 --ms 29,30,31 --json $R/gap.json > $R/gap.txt 2>&1
echo "gap rc=$? $(grep -c '^N=' $R/gap.txt) points"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
