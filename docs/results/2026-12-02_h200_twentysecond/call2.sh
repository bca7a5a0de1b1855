#!/bin/bash
# call 2 (twenty-second session, one H200): the rs/ar wave-fill rule past one wave
# (dispatch.FUSED_FILL_PAST_ONE_WAVE) held out. (A) every GPU test + 20 s of fuzz with it;
# (B) fresh random shapes whose N / 64 exceeds the rank's budget (TP2: 66 SMs per virtual rank,
# N 4992..13696; TP4: 33 SMs, N 2560..7040), M 16 / 96 / 256 / 448 (none of call 1's), rs and ar,
# every candidate timed (fused_choice_ab.py --choices default,cands). The old rule's pick (the
# default decode kernel, cta_group 1) is among the candidates: fit.py scores both.
# Prediction: the new default >= 0.95 of the best (geometric mean) and >= 1.15x the old pick;
# M 16 the smallest gain (the rows per k-step differ least).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 170 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 13696:3456,4992:2672,12416:3136,8576:1080 --ms 16,96,256,448 --choices default,cands \
  --rounds 2 --json $R/held_tp2.json > $R/held_tp2.txt 2>&1
cut -c1-170 $R/held_tp2.txt | tail -32
echo "B $(( $(date +%s)-T0 ))s"
timeout 200 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 4 \
  --shapes 3200:2176,2560:1544,7040:896,3840:1416 --ms 16,96,256,448 --choices default,cands \
  --rounds 2 --json $R/held_tp4.json > $R/held_tp4.txt 2>&1
cut -c1-170 $R/held_tp4.txt | tail -32
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
