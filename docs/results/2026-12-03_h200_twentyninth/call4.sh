#!/bin/bash
# call 4 (twenty-ninth session, one H200): the session's HEAD (kernels rebuilt from it).
#  1. every GPU test + 20 s fuzz (splitkw at token tiles 96 / 128 / 160, test_splitkw and the
#     fuzzer taking each).
#  2. S: where mode none stands now, unbiased: 8 fresh random shapes (seed 2903: N 1024..16383,
#     K 512..16383, multiples of 8, every K class) x M 16 / 64 / 96 / 160 / 256 / 384, every
#     candidate, the dispatch against `kwtiles28` (the session's two changes set back).
# Prediction (host replay): 2 of 48 picks move (N 1456 K 2064 M 160, N 2568 K 2448 M 96: splitk
# 128c2 -> splitkw96c4; short K, a coin flip); ~0.96 of the best overall.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; echo "device_check rc=$?"
tail -4 $R/dc.txt
echo "checks $(( $(date +%s)-T0 ))s"
timeout 290 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,kwtiles28,cands --ms 16,64,96,160,256,384 \
  --shapes 14520:2688,1456:2064,11792:11912,15984:7592,14704:12912,6312:3328,13944:14312,2568:2448 \
  --json $R/sweep.json > $R/sweep.txt 2>&1; echo "S rc=$? $(( $(date +%s)-T0 ))s"
cut -c1-160 $R/sweep.txt | tail -3
cd $OUT && tar czf r.tgz r && rm -rf r
