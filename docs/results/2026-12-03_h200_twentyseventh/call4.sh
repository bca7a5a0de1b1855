#!/bin/bash
# call 4 (twenty-seventh session, one H200): fit data for the weakest region of call 1's sweep
# (N 2048..6143 with rows off the 128-byte lines: the dispatch 0.840x torch.mm, 0.956 of the
# best; the best candidate itself 0.878x): 12 fresh random shapes (seed 2704: N log-uniform
# 2048..6143, every fourth one a multiple of 8 only; K log-uniform 512..8192, never a multiple of
# 64) x M 200 / 256 / 333 / 400 / 512, every candidate timed, the final rules, warm and cold.
# Nothing is changed on it this session: it is recorded for the next fit.
# Prediction: the dispatch ~0.95 of the best there, the best ~0.88x torch.mm.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,cands \
  --ms 200,256,333,400,512 --shapes 3904:2408,2944:1608,2240:5320,2368:1168,4864:7248,3648:4248,4544:672,5824:872,2368:888,2240:7472,2752:728,2872:2080 \
  --json $R/offlines_mid.json > $R/offlines_mid.txt 2>&1; echo "rc=$?"
echo "A $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/offlines_mid.txt | tail -61
cd $OUT && tar czf r.tgz r && rm -rf r
