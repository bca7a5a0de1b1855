#!/bin/bash
# call 3 (twenty-second session, one H200): rs/ar's wave-fill rule with its own decode prices
# (dispatch.FUSED_FILL_PRICE_DECODE, fitted to calls 1-2: rows >= 320 per k-step at 1.15 instead
# of mode none's 1.25 / 1.4) held out, with the past-one-wave clause of call 2.
# (A) every GPU test + 10 s of fuzz; (B) fresh random shapes, M 64 / 200 / 320 / 384 / 512, rs and
# ar, every candidate timed: TP2 (66 SMs per virtual rank; N 1152 / 1664 leave SMs idle, the
# rest past one wave), TP4 (33 SMs), TP8 (16 SMs). fit.py scores old / wave / dispatch.
# Prediction: dispatch >= 0.95 of the best (geometric mean per TP) and >= the `wave` rule at M
# >= 320 (where the prices move picks), equal below.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 bash tools/device_check.sh --fuzz-s 10 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
P="python3 tools/probes/fused_choice_ab.py --modes rs,ar --ms 64,200,320,384,512 --choices default,cands --rounds 2"
timeout 150 $P --tp 2 --shapes 1152:1984,1664:672,9216:1024,12672:2920,13312:1024,12416:1328 \
  --json $R/held3_tp2.json > $R/held3_tp2.txt 2>&1; cut -c1-150 $R/held3_tp2.txt | tail -60 | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best"
echo "B $(( $(date +%s)-T0 ))s"
timeout 120 $P --tp 4 --shapes 6016:1152,7296:2840,3712:1024,8320:1696 \
  --json $R/held3_tp4.json > $R/held3_tp4.txt 2>&1; cut -c1-150 $R/held3_tp4.txt | tail -40 | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best"
echo "C $(( $(date +%s)-T0 ))s"
timeout 100 $P --tp 8 --shapes 4352:896,2176:2792 \
  --json $R/held3_tp8.json > $R/held3_tp8.txt 2>&1; cut -c1-150 $R/held3_tp8.txt | tail -20 | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best"
echo "D $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
