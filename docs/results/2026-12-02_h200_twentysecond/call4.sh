#!/bin/bash
# call 4 (twenty-second session, one H200): rs/ar's wave-fill rule with the tile schedule among
# its options past one wave from M 200 (dispatch.FUSED_FILL_TILE_MIN_M, FUSED_FILL_PRICE_TILE
# 0.9; fitted to calls 1-2, restricted on call 3) held out, with call 3's prices and call 2's
# past-one-wave clause. (A) every GPU test + 10 s of fuzz (the final dispatch);
# (B) fresh random shapes (seed 4242424), M 128 / 224 / 288 / 416 / 480, rs and ar, every
# candidate timed: TP2 (N 1280 leaves SMs idle; the rest past one wave of 66), TP4, TP8.
# Prediction: dispatch >= 0.95 of the best at TP2 / TP4 and >= 0.92 at TP8 (geometric mean), and
# >= the `prices` rule (call 3's) at M >= 224 on every TP.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 bash tools/device_check.sh --fuzz-s 10 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
P="python3 tools/probes/fused_choice_ab.py --modes rs,ar --ms 128,224,288,416,480 --choices default,cands --rounds 2"
timeout 150 $P --tp 2 --shapes 1280:3072,6912:2736,13184:1152,7808:2904,7936:1984,8448:2384 \
  --json $R/held4_tp2.json > $R/held4_tp2.txt 2>&1; cut -c1-150 $R/held4_tp2.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -30
echo "B $(( $(date +%s)-T0 ))s"
timeout 120 $P --tp 4 --shapes 6144:576,4480:2968,6016:2752,6016:3040 \
  --json $R/held4_tp4.json > $R/held4_tp4.txt 2>&1; cut -c1-150 $R/held4_tp4.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -30
echo "C $(( $(date +%s)-T0 ))s"
timeout 110 $P --tp 8 --shapes 4992:896,2432:2096,2816:704 \
  --json $R/held4_tp8.json > $R/held4_tp8.txt 2>&1; cut -c1-150 $R/held4_tp8.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -30
echo "D $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
