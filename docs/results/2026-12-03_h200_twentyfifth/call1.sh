#!/bin/bash
# call 1 (twenty-fifth session, one H200): (A) every GPU test + 30 s of fuzz on the tree (the
# twenty-fourth session's partial-row-tile price and review commits never ran on a GPU);
# (B) where the twenty-fourth session's random sweep missed at small N (<= 30 W tiles: clusters
# of 4 fit one wave) and short K (13..35 k-tiles, below clusters of 4's 32): 8 fresh random
# shapes (seed 2501: N 640..1920 in steps of 64, K 13..35 k-tiles, every other one off the
# 128-byte lines) x M 1 / 16 / 48 / 80 / 128 / 176, the dispatch against every candidate, warm
# and cold. A fit set: no rule changed yet.
# Prediction (from the twenty-fourth session's 7 such shapes): clusters of 4 at M's token tile
# >= clusters of 2 from ~22 k-tiles at M <= 128 (by 2-8%); the dispatch's decode picks at M 80 /
# 128 / 176 0.75-0.92 of the best (splitk spread over token tiles / clusters of 4 the best).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 240 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 300 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,cands \
  --ms 1,16,48,80,128,176 \
  --shapes 960:1472,832:2104,704:1024,1088:1200,1728:1984,1344:1824,1728:1600,1856:1696 \
  --json $R/small_n.json > $R/small_n.txt 2>&1; echo "rc=$?"; cut -c1-220 $R/small_n.txt | tail -52
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
