#!/bin/bash
# call 5 (twenty-third session, one H200): splitk's wide-N bound at 32 k-tiles
# (dispatch.SPLITK_WIDE_MIN_K_TILES; fitted on call 4) held out: (A) every GPU test + 15 s of
# fuzz with it; (B) 11 fresh random shapes (seeds 2324 / 2325: N 3712..4096, K 2152..3328,
# 34..52 k-tiles, K no multiple of 64 at 6) x M 1 / 24 / 48 / 64 / 96 / 128, the dispatch against
# the rule before (choice_ab splitkwide22: from 56 k-tiles), warm and cold. M 96 / 128 at 36+
# k-tiles take splitk's token tile 128 (SPLITK_LONG_K_MAX_M), never measured at these N.
# Prediction: where the pick moved, >= 1.05x the rule before (geometric mean) at M <= 64; M 96 /
# 128 1.0x-1.1x.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 bash tools/device_check.sh --fuzz-s 15 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 300 python3 tools/probes/choice_ab.py --both-regimes --rounds 3 --rules dispatch,splitkwide22 \
  --ms 1,24,48,64,96,128 \
  --shapes 4032:2664,3712:2536,3904:2776,4032:2624,3840:3288,3712:3328,3712:2896,3968:3160,4096:2400,3840:2256,4032:2152 \
  --json $R/held_splitk.json > $R/held_splitk.txt 2>&1; echo "rc=$?"; cut -c1-200 $R/held_splitk.txt | tail -66
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
