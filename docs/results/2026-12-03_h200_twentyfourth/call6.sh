#!/bin/bash
# call 6 (twenty-fourth session, one H200): the partial-row-tile price (dispatch.
# FILL_TILE_PARTIAL_ROWS 64 / FILL_PRICE_TILE_PARTIAL 1.35: where M's last 128-row tile holds at
# most 64 rows the tile schedule keeps the old price), fitted on calls 3 and 5's losses, held out:
# 10 fresh random aligned shapes it moves (seed 2429: N 6400..7360, K 640..6592, multiples of
# 64) x M 392 / 408 / 432 / 448 / 512, the dispatch against the rule without it (filltile24) and
# the rule before the session (filltile23), worse of warm and cold.
# Prediction: where it moved (30 points), >= 1.05x filltile24 (the wide decode kernels back);
# against filltile23 ~1.0x there.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 150 python3 tools/probes/choice_ab.py --both-regimes --rounds 3 \
  --rules dispatch,filltile24,filltile23 --ms 392,408,432,448,512 \
  --shapes 6400:4032,6528:2368,6464:640,6784:1856,6976:5120,6784:1152,7104:6592,7168:1216,7360:1792,6400:2240 \
  --json $R/held_partial.json > $R/held_partial.txt 2>&1; echo "rc=$?"
echo "A $(( $(date +%s)-T0 ))s"
cut -c1-220 $R/held_partial.txt | tail -51
cd $OUT && tar czf r.tgz r && rm -rf r
