#!/bin/bash
# call 7 (tenth session, one H200): splitk with clusters of 2 past the 56-W-tile bound (N 3712..
# 4096: 58..64 W tiles, at most the 66 clusters of 2 an H200 holds at once) at long K, against
# the decode kernel at M's token tile (cta_group 1), M 1 / 16 / 32 / 64: call 4 saw 1.05x-1.19x
# at N 4096 K 3584 / 5120, the fifth session nothing at K 7168 / 14336.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
S=""
for N in 3712 3840 3968 4096; do for K in 2816 3584 4608 7168 14336; do S="$S,$N:$K"; done; done
S=${S#,}
for spec in "1,16 swapab16c1" "32 swapab32c1" "64 swapab64c1"; do
  set -- $spec
  timeout 120 python3 tools/probes/choice_ab.py --shapes $S --ms $1 --rules dispatch,$2,splitk-c2 \
    --both-regimes --rounds 3 --json $R/wide_m${1/,/_}.json 2>&1 | tail -1 | cut -c1-200
  echo "wide $1 $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
