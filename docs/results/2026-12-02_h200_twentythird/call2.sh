#!/bin/bash
# call 2 (twenty-third session, one H200): rs/ar's tile clause per TP
# (dispatch.FUSED_FILL_TILE_MIN_WAVES = {2: 2}: at two ranks only past two waves of the default;
# fitted on the twenty-second session's calls 1-4 and call 1 here) held out.
# (A) every GPU test + 20 s of fuzz with it; (B) fresh random shapes (seed 2323), every candidate
# timed, rs and ar: two virtual ranks, 6 shapes between one and two waves (N 4352..8448) and 4
# past two (N 8576..14080), M 208 / 272 / 352 / 464; four virtual ranks (unchanged there), 5
# shapes; (C) mode none's weakest model shapes of call 1 (N 8192 K 3696 M 256: 0.86x; N 12288
# K 1536 M 512 cold 0.89x) with every candidate, warm and cold.
# Predictions: (B) TP2: the dispatch (tp2at2) >= the one-wave clause (tile1) by 2-3% geometric
# mean over all points, ~1.05x on the moved AR points, ~1.0 on the moved RS points; TP4 the same
# as before (>= 0.95 of the best). (C) a candidate >= 0.9x torch.mm at both points.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
P="python3 tools/probes/fused_choice_ab.py --modes rs,ar --choices default,cands --rounds 2"
timeout 150 $P --tp 2 --ms 208,272,352,464 \
  --shapes 7552:728,4736:1784,6784:600,6016:2032,4608:1576,7936:2704,12928:2672,10496:3416,10240:2816,10112:1432 \
  --json $R/held_tp2.json > $R/held_tp2.txt 2>&1; cut -c1-150 $R/held_tp2.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -40
echo "B $(( $(date +%s)-T0 ))s"
timeout 100 $P --tp 4 --ms 208,272,352,464 --shapes 3968:1616,2688:3472,2432:1056,4352:2632,6656:2288 \
  --json $R/held_tp4.json > $R/held_tp4.txt 2>&1; cut -c1-150 $R/held_tp4.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -30
echo "C $(( $(date +%s)-T0 ))s"
timeout 60 python3 tools/bench_decode.py --both-regimes --n 8192 --ks 3696 --ms 224,256,288 \
  --json $R/none_8192.json > $R/none_8192.txt 2>&1; cut -c1-400 $R/none_8192.txt | tail -4
timeout 60 python3 tools/bench_decode.py --both-regimes --n 12288 --ks 1536 --ms 448,512 \
  --json $R/none_12288.json > $R/none_12288.txt 2>&1; cut -c1-400 $R/none_12288.txt | tail -3
echo "D $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
