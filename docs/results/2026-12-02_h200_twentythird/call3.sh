#!/bin/bash
# call 3 (twenty-third session, one H200): (A) every GPU test + 15 s of fuzz on the final code
# (host-side refactors since call 2: Group / TPContext share SharedInstance, one group-shape
# check); (B) mode none's misses among call 1's model shapes below 0.9x torch.mm with small
# kernels (N 4096 K 1792 / 2048 at M 32 / 64, N 5120 K 1280 at M 128: 5-7 us, the worse of warm
# and cold 0.85x-0.89x, the warm weight losing) with every candidate, warm and cold.
# Prediction: some candidate (the wide decode kernel or splitk, more SMs streaming W) >= 0.95x
# torch.mm warm at 3 of the 5 points; the dispatch's pick within 5% of the best candidate.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 bash tools/device_check.sh --fuzz-s 15 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 90 python3 tools/bench_decode.py --both-regimes --rounds 5 --n 4096 --ks 1792,2048 --ms 32,64 \
  --json $R/none_4096.json > $R/none_4096.txt 2>&1; cut -c1-300 $R/none_4096.txt | tail -5
timeout 60 python3 tools/bench_decode.py --both-regimes --rounds 5 --n 5120 --ks 1280 --ms 128 \
  --json $R/none_5120.json > $R/none_5120.txt 2>&1; cut -c1-300 $R/none_5120.txt | tail -2
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
