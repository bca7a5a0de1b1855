#!/bin/bash
# call 4 (tenth session, one H200): cache_gpu rebuilt from the working tree (sm90_swapab's k-tile
# count as cute.ceil_div; the tile template unchanged). The splitk rule was fitted against the
# decode kernel before this fix; now the decode kernel (swapab at M's token tile, cta_group 1) is
# 0.5-1.2 us faster warm, so: splitk with clusters of 2 against it again at N 1536..4096 x K
# 1600..5120 x M 1/16/32/64 (the dispatch timed too). Then every GPU test and 90 s of fuzz.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
S=""
for N in 1536 2048 2560 3072 3584 3840 4096; do for K in 1600 1984 2368 2816 3584 5120; do S="$S,$N:$K"; done; done
S=${S#,}
for spec in "1,16 swapab16c1" "32 swapab32c1" "64 swapab64c1"; do
  set -- $spec
  timeout 150 python3 tools/probes/choice_ab.py --shapes $S --ms $1 --rules dispatch,$2,splitk-c2 \
    --both-regimes --rounds 3 --json $R/fit_m${1/,/_}.json 2>&1 | tail -2 | cut -c1-200
  echo "fit $1 $(( $(date +%s)-T0 ))s"
done
bash tools/device_check.sh --fuzz-s 90 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/dc.txt
gzip -9 $R/dc/*.log 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
