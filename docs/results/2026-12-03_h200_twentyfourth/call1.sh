#!/bin/bash
# call 1 (twenty-fourth session, one H200): (A) every GPU test + 30 s of fuzz on the tree (the
# twenty-third session's last two commits never ran on a GPU, plus this session's splitk clause);
# (B) splitk's wide-N clause below 32 k-tiles at M <= 32 (dispatch.SPLITK_WIDE_SHORT_K_MAX_M,
# fitted on the twenty-third session's call 4) held out at 10 fresh random shapes (seed 2424: N
# 3648..4096, three of them no multiple of 64; K 1272..1904, 20..30 k-tiles, K no multiple of 64
# at 7), M 1 / 8 / 17 / 24 / 32, and M 40 / 48 past the bound (the dispatch is the rule before
# there: splitk-c2 says what was left), the dispatch against the rule before (splitkwide23), warm
# and cold.
# Prediction: where the pick moved, 1.04x-1.08x the rule before (geometric mean; M 17..32 ~1.09x,
# M 1..8 ~1.05x, M 16-ish a wash); at M 40 / 48 splitk-c2 0.97x-1.02x of the dispatch.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 240 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 330 python3 tools/probes/choice_ab.py --both-regimes --rounds 3 \
  --rules dispatch,splitkwide23,splitk-c2 --ms 1,8,17,24,32,40,48 \
  --shapes 3904:1736,3648:1632,3648:1304,4096:1384,4096:1856,4096:1504,4096:1768,3880:1272,3688:1312,3720:1904 \
  --json $R/held_short.json > $R/held_short.txt 2>&1; echo "rc=$?"; cut -c1-220 $R/held_short.txt | tail -72
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
