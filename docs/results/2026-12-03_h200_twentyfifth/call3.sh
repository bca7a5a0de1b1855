#!/bin/bash
# call 3 (twenty-fifth session, one H200; the session's last device time): (A) the GPU tests the
# small-N clause touches (test_splitk.py with its dispatch test now up to M 385, test_ragged_n.py
# whose assertion call 2 failed: splitk now serves its N 8 / 24 / 1000 at K 1000) + the special
# values, and 20 s of fuzz; (B) the clause's M bound 192 -> 384 (fitted on call 2's (C)) held out
# at 8 fresh random shapes (seed 2503: N 640..1920, one no multiple of 64; K 13..35 k-tiles,
# every other one off the lines) x M 200 / 240 / 288 / 352 / 384, the dispatch against the
# bound 192 (splitkshort192), warm and cold.
# Prediction: 22 of 40 points move; where moved ~1.10x (the fit: 24 moved, 1.107x).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py tests/gpu/test_ragged_n.py \
  tests/gpu/test_special_values.py > $R/gpu_tests.txt 2>&1; echo "rc=$?"; tail -3 $R/gpu_tests.txt
grep -E "^FAILED" $R/gpu_tests.txt | head
echo "A $(( $(date +%s)-T0 ))s"
timeout 100 python3 tools/probes/choice_ab.py --both-regimes --rounds 3 \
  --rules dispatch,splitkshort192 --ms 200,240,288,352,384 \
  --shapes 1280:1856,1408:1136,1024:1792,640:1720,1280:1728,696:1400,832:1856,1600:856 \
  --json $R/held_m384.json > $R/held_m384.txt 2>&1; echo "rc=$?"; cut -c1-200 $R/held_m384.txt | tail -42
echo "B $(( $(date +%s)-T0 ))s"
timeout 40 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 20 --json $R/fuzz.json > $R/fuzz.txt 2>&1; echo "rc=$?"; tail -2 $R/fuzz.txt
echo "C $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
