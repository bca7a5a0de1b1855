#!/bin/bash
# call 3 (twenty-sixth session, one H200): (A) every GPU test + 15 s of fuzz on the final code
# (call 2's one failure was test_none_dispatch_small_n_short_k[1000-1096] expecting the clause's
# pick at M 511, where an N no multiple of 64 leaves the fill rule: the test now says so); (B) a
# fresh random sweep like call 1 (seed 2604; 576:640, drawn by call 1 too, replaced by the next
# draw): the dispatch against the rules before the session (`rules25`) and torch.mm, warm and
# cold; cut at 80 s (refused starts left ~500 s of device time: the shapes it reaches; no
# candidates timed).
# Prediction: the session's rules move ~10% of the points, ~1.10x where moved; the dispatch >=
# 0.9x torch.mm at ~78% (call 1: 78%).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 bash tools/device_check.sh --fuzz-s 15 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
SH=512:7424,1536:728,6592:896,4712:2424,1728:3776,6144:1728,896:512,3824:2648,4288:512,15296:7008,4416:1280,4152:904,4544:4032,4608:1584,576:1216,2504:1064,3200:7168,1152:1696,6144:2560,2984:2312,3840:1920,8576:2648,11776:3136,14176:1976
timeout 80 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,rules25 \
  --ms 16,40,100,128,200,256,333,512 --shapes $SH \
  --json $R/sweep_decode.json > $R/sweep_decode.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/sweep_decode.txt | tail -70
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
