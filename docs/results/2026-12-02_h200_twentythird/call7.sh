#!/bin/bash
# call 7 (twenty-third session, one H200): rs/ar's splitk clause (dispatch.FUSED_SPLITK: the
# fused fill rule takes choose_splitk's choice first, given the mode's splitk kernels' cluster
# slots shared by the ranks on the device; fitted on call 6) held out: (A) every GPU test + 20 s
# of fuzz with it; (B) fresh random shapes (seed 2326; K 1000..12000, no multiple of 64 at most),
# every candidate timed, rs and ar, M 1 / 24 / 48 / 96 / 128 / 160: two virtual ranks (7 shapes,
# N 704..2304; clusters of 4 where N / 64 <= 15), four (4 shapes), eight (3 shapes, N 192..448).
# Prediction: where the pick moved, >= 1.15x the rule without it (geometric mean), >= 0.97 of the
# best candidate over all points; clusters of 4 on two virtual ranks at least as fast as the
# default (unmeasured: call 6's clusters of 4 did not fit the rank's share).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
P="python3 tools/probes/fused_choice_ab.py --modes rs,ar --choices default,cands --rounds 2 --ms 1,24,48,96,128,160"
timeout 130 $P --tp 2 --shapes 2240:9216,2304:11536,704:9592,2112:4096,832:4976,1792:8576,1856:11568 \
  --json $R/sk_tp2.json > $R/sk_tp2.txt 2>&1; echo "rc=$?"; cut -c1-150 $R/sk_tp2.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -30
echo "B $(( $(date +%s)-T0 ))s"
timeout 90 $P --tp 4 --shapes 1280:7256,1152:9104,704:9832,1088:5568 \
  --json $R/sk_tp4.json > $R/sk_tp4.txt 2>&1; echo "rc=$?"; cut -c1-150 $R/sk_tp4.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -20
echo "C $(( $(date +%s)-T0 ))s"
timeout 90 $P --tp 8 --shapes 320:8288,448:1944,192:1568 \
  --json $R/sk_tp8.json > $R/sk_tp8.txt 2>&1; echo "rc=$?"; cut -c1-150 $R/sk_tp8.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -20
echo "D $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
