#!/bin/bash
# call 6 (twenty-third session, one H200): (A) rs/ar's splitk kernels against every candidate
# where the fused fill rule applies (the default decode kernel leaves SMs idle: N / 64 < 75% of
# the budget), a fit set: two virtual ranks (66 SMs each), N 1024 / 1536 / 2048 / 2560 x K 1536 /
# 2560 / 4096 / 8192 x M 1 / 16 / 64 / 128; four (33 SMs), N 768 / 1152 x K 2048 / 4096 x M 16 /
# 64. rs/ar take splitk today only from a table or when fixed. (B) mode none at the model shapes
# of N 4096 again (call 1's misses at K 1792 / 2048), with splitk's new wide-N bound.
# Prediction: (A) splitk (clusters of 2 or 4) the best candidate at most points from K 4096 at M
# <= 64, 1.1x-1.4x the default there; not at K 1536. (B) K 2048 M 32 / 64 >= 0.95x torch.mm.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
P="python3 tools/probes/fused_choice_ab.py --modes rs,ar --choices default,cands --rounds 2"
timeout 200 $P --tp 2 --ms 1,16,64,128 \
  --shapes 1024:1536,1024:2560,1024:4096,1024:8192,1536:1536,1536:2560,1536:4096,1536:8192,2048:1536,2048:2560,2048:4096,2048:8192,2560:1536,2560:2560,2560:4096,2560:8192 \
  --json $R/sk_tp2.json > $R/sk_tp2.txt 2>&1; echo "rc=$?"; cut -c1-150 $R/sk_tp2.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -40
echo "A $(( $(date +%s)-T0 ))s"
timeout 80 $P --tp 4 --ms 16,64 --shapes 768:2048,768:4096,1152:2048,1152:4096 \
  --json $R/sk_tp4.json > $R/sk_tp4.txt 2>&1; echo "rc=$?"; cut -c1-150 $R/sk_tp4.txt | grep -v " 1.0[0-9][0-9] of best\| 0.9[5-9][0-9] of best" | tail -20
echo "B $(( $(date +%s)-T0 ))s"
timeout 60 python3 tools/bench_decode.py --dispatch-only --both-regimes --n 4096 --ks 512,1792,2048,7168 \
  --ms 16,32,64,128,256,512 --json $R/none_n4096.json > $R/none_n4096.txt 2>&1; grep -v "^ *K " $R/none_n4096.txt | cut -c1-170
echo "C $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
