#!/bin/bash
# call 3 (twenty-seventh session, one H200): (A) every GPU test + 20 s of fuzz on the final code
# (call 2's one failure was test_none_dispatch_at_decode_sizes_past_n calling M 513 on an op of
# max_M 512: the op now has 640); (B) the fill rule at an N no multiple of 64 past M 448 with
# its tile picks left to the rules (FILL_RAGGED_TILE_TO_RULES, fitted on call 2's N 10288 loss)
# held out at N >= 2048 where it still moves: 12 fresh random shapes (seed 2702) x M 449 / 480 /
# 512, every candidate, the dispatch against `ragged26` (both set back), warm and cold.
# Prediction: (A) all pass; (B) 16 of 36 moved (host replay), ~1.08x where moved, no loss below
# 0.95x.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 110 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,ragged26,cands \
  --ms 449,480,512 --shapes 2920:1792,5704:7392,2528:640,13520:1088,2464:576,3024:1872,4488:3584,3848:2808,5512:2112,2792:736,8288:832,11408:896 \
  --json $R/held_ragged_tile.json > $R/held_ragged_tile.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/held_ragged_tile.txt | tail -37
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
