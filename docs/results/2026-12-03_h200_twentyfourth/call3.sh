#!/bin/bash
# call 3 (twenty-fourth session, one H200): (A) mode none's fill rule with the tile schedule at
# every width serving N and both cta_groups on aligned rows too, priced 1.25 (was: widths
# dividing N at choose_cta_group's, 1.35; dispatch.FILL_TILE_EVERY_WIDTH / FILL_PRICE_TILE,
# fitted on call 2's 72 aligned points: 0.961 -> 0.981 of the best there) held out: 12 fresh
# random aligned shapes the rule moves (seed 2426: N 6400..15296, K 640..8192, all multiples of
# 64) and N 7168 K 1024 / 3584, N 16384 K 2048, N 8192 K 1024 (model-like; no tuning table) x M
# 256 / 320 / 384 / 416 / 448 / 512, the dispatch against the rule before (filltile23), worse
# of warm and cold; (B) every GPU test + 30 s fuzz with it.
# Prediction: where the pick moved, >= 1.08x the rule before (geometric mean), losses at N 7168
# M 416 / 448 possible (the fourth session measured swapab208c2 best at M 416 with older tile
# kernels); no change elsewhere.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 python3 tools/probes/choice_ab.py --both-regimes --rounds 3 --rules dispatch,filltile23 \
  --ms 256,320,384,416,448,512 \
  --shapes 9408:2240,8512:2240,6592:960,14016:640,13312:3776,11200:3456,15296:2112,9152:832,6400:8192,8512:2560,13248:768,14784:1856,7168:1024,7168:3584,16384:2048,8192:1024 \
  --json $R/held_tile.json > $R/held_tile.txt 2>&1; echo "rc=$?"
echo "A $(( $(date +%s)-T0 ))s"
timeout 240 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "B $(( $(date +%s)-T0 ))s"
cut -c1-200 $R/held_tile.txt | tail -97
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
