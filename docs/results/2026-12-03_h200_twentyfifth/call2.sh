#!/bin/bash
# call 2 (twenty-fifth session, one H200): (A) every GPU test + 45 s of fuzz with the small-N,
# short-K splitk clause (dispatch.choose_splitk_short, fitted on call 1) and its new GPU test;
# (B) the clause held out: 10 fresh random shapes (seed 2502: N 640..1920, two of them no
# multiple of 64; K 13..35 k-tiles, every other one off the 128-byte lines) x M 1 / 24 / 40 / 56
# / 96 / 112 / 144 / 160 / 192, the dispatch against the rule without it (splitkshort24) and
# every candidate, warm and cold; (C) past the clause's M bound, a fit set.
# Prediction: 79 of the 90 points move; where moved ~1.10x the rule before (the fit's 18 moved
# points of the twenty-fourth session: 1.100x), the dispatch >= 0.97 of the best candidate
# (geometric mean; the fit: 0.997), the rule before ~0.90 of it.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 260 bash tools/device_check.sh --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 240 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,splitkshort24,cands --ms 1,24,40,56,96,112,144,160,192 \
  --shapes 896:2176,1856:904,1152:1536,1720:1688,1088:1344,1152:1384,768:1536,856:1048,960:2112,1600:1496 \
  --json $R/held_short.json > $R/held_short.txt 2>&1; echo "rc=$?"; cut -c1-200 $R/held_short.txt | tail -92
echo "B $(( $(date +%s)-T0 ))s"
# (C) a fit set for later: the same shapes past the clause's M bound (M 224 / 256 / 320 / 384),
# the dispatch against every candidate
timeout 150 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,cands \
  --ms 224,256,320,384 \
  --shapes 896:2176,1856:904,1152:1536,1720:1688,1088:1344,1152:1384,768:1536,856:1048,960:2112,1600:1496 \
  --json $R/past_short.json > $R/past_short.txt 2>&1; echo "rc=$?"; cut -c1-200 $R/past_short.txt | tail -42
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
