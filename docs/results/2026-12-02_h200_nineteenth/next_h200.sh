#!/bin/bash
# For the next session on one H200 (written 2026-12-02, nineteenth session; NOT run). Build
# cache_gpu from HEAD first (README of this directory), carry it, run:
#   bash docs/results/2026-12-02_h200_nineteenth/next_h200.sh
# 1. Every GPU test + fuzz on HEAD (call 8 ran them on 510e041; the prune change after it is host code).
# 2. swapabx past one wave of clusters (N > 8448 on an H200, not dispatched): clusters of 2 / 4
#    against the dispatch at 8 random shapes with K % 64 != 0, N 8512..16384 (seed 1922), M 48 /
#    96 / 144 / 192 - the fit set for a rule there (call 3 saw 0.56x-1.23x with a rounds rule).
# 3. The gap M 29..31 below the rule's bound (call 7: 25 / 28 lost, 32 won).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 220 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
S=$(python3 -c "
import random; rng = random.Random(1922); out = []
while len(out) < 8:
    N, K = 64 * rng.randint(133, 256), 8 * rng.randint(125, 2000)
    if K % 64: out.append(f'{N}:{K}')
print(','.join(out))")
for bt in 64 96 160 192; do
  m=$bt; [ $bt = 64 ] && m=48; [ $bt = 160 ] && m=144
  timeout 80 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --shapes $S --ms $m \
    --rules dispatch,swapabx${bt}c2,swapabx${bt}c4 --json $R/past$bt.json > $R/past$bt.txt 2>&1
  echo "past$bt rc=$? $(grep -c '^N=' $R/past$bt.txt) points"
done
timeout 80 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,swapabx32c2,swapabx32c4 \
  --shapes 7168:2360,6144:4136,8192:3696,5120:8600,7680:10888 --ms 29,30,31 --json $R/gap.json > $R/gap.txt 2>&1
echo "gap rc=$? $(grep -c '^N=' $R/gap.txt) points"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
