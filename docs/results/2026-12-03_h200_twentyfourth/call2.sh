#!/bin/bash
# call 2 (twenty-fourth session, one H200): where does mode none's dispatch stand at shapes no
# rule was fitted on? 20 random shapes (seed 2403: N log-uniform 1024..16384 in steps of 128, K
# log-uniform 512..8192 in steps of 8, every other one a multiple of 64; contiguous tensors, so
# K % 64 != 0 means rows off the 128-byte lines) x M 16 / 48 / 128 / 256 / 384 / 512: the
# dispatch against every tuning candidate (`cands`) and torch.mm, warm and cold (A); the same
# shapes past the decode rows, M 640 / 1024 / 2048 / 4096, dispatch only (B); 60 s more fuzz (C).
# Prediction: the dispatch >= 0.95 of the best candidate at 80% of decode points, >= 0.9x
# torch.mm at ~85%; past 512 rows 0.9x-1.05x torch.mm except small N at 640 / 1024.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
SH=1280:1984,13824:768,1792:832,2176:1944,2432:1792,13568:632,6400:4352,1408:816,11776:6144,1792:1920,1408:5312,9216:2008,15360:960,12032:5400,3200:3072,5248:4568,13184:4672,5760:1712,1280:1408,8320:6632
timeout 330 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,cands \
  --ms 16,48,128,256,384,512 --shapes $SH \
  --json $R/sweep_decode.json > $R/sweep_decode.txt 2>&1; echo "rc=$?"
echo "A $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch \
  --ms 640,1024,2048,4096 --shapes $SH \
  --json $R/sweep_large.json > $R/sweep_large.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
timeout 90 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 60 --json $R/fuzz.json > $R/fuzz.txt 2>&1; echo "rc=$?"; tail -2 $R/fuzz.txt
echo "C $(( $(date +%s)-T0 ))s"
cut -c1-200 $R/sweep_decode.txt | tail -125
cut -c1-160 $R/sweep_large.txt | tail -82
cd $OUT && tar czf r.tgz r && rm -rf r
