#!/bin/bash
# call 1 (twenty-seventh session, one H200): (A) the small-N GPU test as edited after the
# twenty-sixth session's last call (never GPU-run) + 20 s of fuzz; (B) the unbiased sweep the
# twenty-sixth session planned and could not run: 24 fresh random shapes (seed 2604, drawn like
# call 1 of that session, no rule fitted on them) x M 16..512, the dispatch against every tuning
# candidate, torch.mm and the rules before that session (`rules25`), warm and cold; (C) N no
# multiple of 64, small N, short K at M 448..512, every candidate: past M 448 the fill rule hands
# over to the tile schedule, so the splitk clause is not weighed there (N 640 / 704 at M 512
# suggested ~1.3x for the clause's pick).
# Prediction: (B) >= 0.95 of the best at ~85% of the points, >= 0.9x torch.mm at ~78%; rules25 ->
# dispatch ~1.10x where moved (~10% of the points). (C) the best candidate at M 480 / 512 a splitk
# kernel, ~1.2x-1.3x over the dispatch's pick.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 60 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py -k small_n_short_k > $R/test_small_n.txt 2>&1; tail -2 $R/test_small_n.txt
timeout 35 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 20 --json $R/fuzz.json > $R/fuzz.txt 2>&1; echo "rc=$?"; tail -2 $R/fuzz.txt
echo "A $(( $(date +%s)-T0 ))s"
SH=512:7424,1536:728,6592:896,4712:2424,1728:3776,6144:1728,896:512,3824:2648,4288:512,15296:7008,4416:1280,4152:904,4544:4032,4608:1584,576:1216,2504:1064,3200:7168,1152:1696,6144:2560,2984:2312,3840:1920,8576:2648,11776:3136,14176:1976
timeout 370 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,rules25,cands \
  --ms 16,40,100,128,200,256,333,512 --shapes $SH \
  --json $R/sweep_decode.json > $R/sweep_decode.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
timeout 80 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,cands \
  --ms 448,480,512 --shapes 1000:1096,1480:1624,840:2000,1720:1352,600:1800,1208:904 \
  --json $R/ragged_small_n.json > $R/ragged_small_n.txt 2>&1; echo "rc=$?"
echo "C $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/sweep_decode.txt | tail -30
cut -c1-150 $R/ragged_small_n.txt | tail -20
cd $OUT && tar czf r.tgz r && rm -rf r
