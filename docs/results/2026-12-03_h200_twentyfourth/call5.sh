#!/bin/bash
# call 5 (twenty-fourth session, one H200): the fill rule's tile options on aligned rows
# (FILL_TILE_EVERY_WIDTH, FILL_PRICE_TILE 1.25) held out a second time, on a random population:
# 10 fresh random aligned shapes (seed 2427: N log-uniform 2048..16384, K 512..8192, multiples
# of 64; drawn without looking at whether the rule moves them) x 8 random M in 200..512 (232,
# 314, 320, 323, 408, 409, 507, 510), the dispatch against the rule before (filltile23), worse of
# warm and cold. The replay moves 19 of the 80 points.
# Prediction: where moved >= 1.05x (M 408 / 409, a fourth partial row tile, may lose as in call
# 3); over all 80 points ~1.02x.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 150 python3 tools/probes/choice_ab.py --both-regimes --rounds 3 --rules dispatch,filltile23 \
  --ms 232,314,320,323,408,409,507,510 \
  --shapes 2816:6976,6528:4224,6080:768,15680:640,12672:2368,5632:3584,10048:576,3456:2432,11392:2048,7552:1920 \
  --json $R/held_tile2.json > $R/held_tile2.txt 2>&1; echo "rc=$?"
echo "A $(( $(date +%s)-T0 ))s"
cut -c1-200 $R/held_tile2.txt | tail -81
cd $OUT && tar czf r.tgz r && rm -rf r
