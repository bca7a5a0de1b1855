#!/bin/bash
# call 1 (twenty-third session, one H200): (A) every GPU test + 60 s of fuzz on HEAD (6fee669's
# review changes never ran on a GPU; the fuzz now also draws N 8192 / 12288 / 16384 and max_M
# 4096); (B) mode none's dispatch against torch.mm at model shapes (row-parallel layers: N the
# hidden size, K its input over TP: Llama-3 8B / 70B / 405B, Qwen2.5 32B / 72B, Mistral Large 2),
# warm and cold weights; (C) rs/ar's rule (no table) against every candidate on two / four
# virtual ranks at model-like shapes (fresh, held out for the twenty-second session's rule and
# its 2x-budget tile candidate).
# Predictions: (B) >= 0.9x torch.mm at most points, weakest at N 16384 (past one wave) and K 3696
# (rows off the lines); (C) dispatch >= 0.93 of the best at TP2, >= 0.90 at TP4.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 190 bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
for NK in 4096:512,1792,2048,7168 5120:1280,6912 8192:1024,3584,3696 12288:1536,3584 16384:2048,6656; do
  N=${NK%%:*}; KS=${NK#*:}
  timeout 60 python3 tools/bench_decode.py --dispatch-only --both-regimes --n $N --ks $KS \
    --ms 16,32,64,128,256,512 --json $R/none_n$N.json > $R/none_n$N.txt 2>&1
  grep -v "^ *K " $R/none_n$N.txt | awk -v n=$N '{print "N" n, $0}' | cut -c1-170
done
echo "B $(( $(date +%s)-T0 ))s"
P="python3 tools/probes/fused_choice_ab.py --modes rs,ar --choices default,cands --rounds 2"
timeout 130 $P --tp 2 --ms 16,64,160,320,448 --shapes 8192:1024,8192:3584,6144:1536,5120:1280 \
  --json $R/held_tp2.json > $R/held_tp2.txt 2>&1; cut -c1-150 $R/held_tp2.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -30
echo "C $(( $(date +%s)-T0 ))s"
timeout 90 $P --tp 4 --ms 64,256,448 --shapes 8192:1024,4096:3584,5120:1280 \
  --json $R/held_tp4.json > $R/held_tp4.txt 2>&1; cut -c1-150 $R/held_tp4.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -30
echo "D $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
