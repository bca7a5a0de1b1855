#!/bin/bash
# call 2 (twenty-seventh session, one H200): every GPU test + 20 s of fuzz with the two changes
# (A); then each change held out on fresh random shapes (seed 2701), every candidate timed, the
# dispatch against the rule without the change, warm and cold:
# (B) the small-N short-K splitk clause up to 66 64-row W tiles (was 30): N 1928..4224, K with
#     13..35 k-tiles (half off the 128-byte lines), M 16 / 24 / 56 / 96 / 128;
# (C) the fill rule deciding an N no multiple of 64 at every decode row (was up to M 448): 16
#     random N no multiple of 64 (512..16384) x K 512..8192, M 449 / 480 / 512.
# Fitted on call 1 + the pooled sets (host replay: B 16 moved 1.078x, C 13 moved 1.086x; small
# N won, N >= 3824 lost 0.98x-0.995x).
# Prediction: B ~1.08x where moved (losses at M 128 possible), C ~1.08x where moved at N < 2048,
# ~0.98x-1.0x above.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 170 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,splitkshort26,cands \
  --ms 16,24,56,96,128 --shapes 3920:2152,2816:2176,3520:2160,3136:1216,3328:2080,2944:1984,2224:1432,2304:1344,2560:1776,3520:2176,2240:1528,3776:1664 \
  --json $R/held_short.json > $R/held_short.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,ragged26,cands \
  --ms 449,480,512 --shapes 680:1408,5624:1728,11384:640,2360:1264,5800:3008,1424:4568,5400:2496,2256:2568,680:5184,10288:3024,528:1152,1048:1288,5960:2112,968:4008,1240:1920,1592:1896 \
  --json $R/held_ragged.json > $R/held_ragged.txt 2>&1; echo "rc=$?"
echo "C $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/held_short.txt | tail -8
cut -c1-150 $R/held_ragged.txt | tail -8
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
