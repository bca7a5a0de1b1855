#!/bin/bash
# call 2 (twenty-sixth session, one H200): (A) every GPU test + 20 s of fuzz with the session's two
# changes (the L2-traffic model's decode price 1.8 -> 1.6; the small-N short-K splitk clause up to
# M 512); (B) the decode price held out: 14 fresh random shapes with rows off the 128-byte lines
# (seed 2602: N log-uniform 512..16384, K 512..8192 with K % 64 != 0) at M where it moves, in two
# groups sharing their M lists: the dispatch against the rule without it (`unaligned25`); (C) the
# clause's M 385..512 held out: 8 fresh shapes it moves (seed 2603: N 512..1024, 13..35 k-tiles)
# x M 392 / 448 / 480 / 512, the dispatch against the clause up to M 384 (`splitkshort25`) and
# every candidate. Worse of warm and cold weights.
# Prediction: (B) where moved ~1.04x (the fit's moved points: 1.070x), losses possible at M < 128
# and N >= 10000 (cta_group 3); (C) where moved ~1.10x, the dispatch >= 0.97 of the best.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 220 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 110 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,unaligned25 \
  --ms 62,93,117,123,134,160 --shapes 16208:2152,15936:600,10432:1336,8896:648,9728:6752 \
  --json $R/held_unaligned1.json > $R/held_unaligned1.txt 2>&1; echo "rc=$?"
timeout 150 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,unaligned25 \
  --ms 180,243,290,352,410,451,494 \
  --shapes 1856:976,960:552,1152:1768,576:552,3592:544,1976:800,3728:7408,2368:720,1520:2504 \
  --json $R/held_unaligned2.json > $R/held_unaligned2.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
timeout 110 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,splitkshort25,cands --ms 392,448,480,512 \
  --shapes 576:2176,896:824,960:1256,576:1688,960:1152,832:1472,512:968,576:1256 \
  --json $R/held_short512.json > $R/held_short512.txt 2>&1; echo "rc=$?"
echo "C $(( $(date +%s)-T0 ))s"
cut -c1-170 $R/held_unaligned1.txt $R/held_unaligned2.txt | tail -95
cut -c1-170 $R/held_short512.txt | tail -33
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
