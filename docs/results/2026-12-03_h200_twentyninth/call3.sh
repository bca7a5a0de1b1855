#!/bin/bash
# call 3 (twenty-ninth session, one H200): the L2-traffic model weighing splitkw at token tiles
# 96 / 160 (dispatch.SPLITKW_MODEL_BTS, at most two token tiles, every pair in one wave) and
# choose_splitk's clusters of 2 yielding to the model past M 64 (was 128), held out. Fitted on
# call 1 (A 0.919 -> 0.982 of the best, B 0.925 -> 0.953; fit.py). No kernel changed since call
# 2 but splitkw192 (dropped), so no GPU tests here.
#  P: the 26 pooled points of earlier sessions whose pick moves (their new picks never timed)
#     and the twenty-eighth session's pinned N 4216 K 13552 M 320,
#     the dispatch against `kwtiles28` (both changes set back) and `c2first28` (the second).
#  F: 8 fresh shapes (seed 2902: N 1024..8191, K 2048..16383 off the lines) x M 64..320, every
#     candidate; 27 of 56 picks move.
# Prediction: where moved ~1.1x against kwtiles28, ~0.96 of the best; at N >= 5000, M 160
# (splitkw160c2 against the tile / decode kernels) a coin flip (call 1's N 5744: 0.72x).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 110 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,kwtiles28,c2first28 --json $R/pool.json \
  --points 1352:11752:320,1944:6376:120,2288:14960:120,2976:16160:300,2984:2312:100,2984:2312:128,3000:10504:160,3000:10504:320,3184:2672:120,3536:12152:120,3824:2648:100,3824:2648:128,3992:3032:303,4952:11512:45,5720:5592:1,5720:5592:16,5720:5592:64,5720:5592:160,5928:6384:45,6056:15696:64,6416:12120:64,6744:16272:64,7008:4184:64,7008:4184:160,7400:7128:40,7920:12600:45,4216:13552:320 \
  > $R/pool.txt 2>&1; echo "P rc=$? $(( $(date +%s)-T0 ))s"
timeout 380 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,kwtiles28,c2first28,cands --ms 64,96,120,160,192,256,320 \
  --shapes 6008:11488,2904:12448,5616:5384,6736:8904,6520:7016,7920:11224,2152:13024,4936:10792 \
  --json $R/fresh.json > $R/fresh.txt 2>&1; echo "F rc=$? $(( $(date +%s)-T0 ))s"
cut -c1-160 $R/pool.txt | tail -3
cd $OUT && tar czf r.tgz r && rm -rf r
