#!/bin/bash
# call 1 (twenty-sixth session, one H200): where does mode none's dispatch stand now, at shapes no
# rule was fitted on? 24 random shapes (seed 2601: N log-uniform 512..16384, multiples of 64 and
# every fourth one of 8 only; K log-uniform 512..8192, every other one a multiple of 64, the
# others of 8; contiguous tensors, so K % 64 != 0 puts rows off the 128-byte lines) x M 16 / 40 /
# 100 / 128 / 200 / 256 / 333 / 512: the dispatch against every tuning candidate and torch.mm,
# warm and cold (A); the same shapes at M 640 / 1024 / 2048 / 4096, dispatch only (B); 30 s of
# fuzz (C).
# Prediction: the dispatch >= 0.95 of the best candidate at ~85% of the decode points (the
# twenty-fourth session's sweep: 75%, before its and the twenty-fifth's rules), >= 0.9x torch.mm
# at ~75% (was 64%); past 512 rows 0.9x-1.05x torch.mm except small N at M 640 / 1024.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
SH=9280:512,6848:6864,4544:2816,8736:800,13952:896,640:872,13952:4480,1376:2920,4096:2880,704:1432,960:1984,7400:7128,10624:768,832:2144,576:640,1200:3304,1728:1152,5888:5216,960:704,3536:1392,4416:2240,832:3904,5760:896,11640:1704
timeout 400 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,cands \
  --ms 16,40,100,128,200,256,333,512 --shapes $SH \
  --json $R/sweep_decode.json > $R/sweep_decode.txt 2>&1; echo "rc=$?"
echo "A $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch \
  --ms 640,1024,2048,4096 --shapes $SH \
  --json $R/sweep_large.json > $R/sweep_large.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
timeout 45 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 30 --json $R/fuzz.json > $R/fuzz.txt 2>&1; echo "rc=$?"; tail -2 $R/fuzz.txt
echo "C $(( $(date +%s)-T0 ))s"
cut -c1-200 $R/sweep_decode.txt | tail -195
cut -c1-120 $R/sweep_large.txt | tail -97
cd $OUT && tar czf r.tgz r && rm -rf r
