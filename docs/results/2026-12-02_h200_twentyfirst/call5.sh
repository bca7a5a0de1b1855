#!/bin/bash
# Call 5 of the twenty-first session (2026-12-02), one H200, cache_gpu carried: every candidate
# with W re-laid on the lines and x contiguous off them (choice_ab.py --relay-weight: the layout
# RowParallelLinear's weights have at K % 64 != 0) at 12 fresh random shapes (seed 20261246) x
# M 96 / 176 / 256: how far WEIGHT_ON_LINES_RULE's pick (`dispatch`) is from the best kernel
# there. Fit data for a later session; no rule here is fitted to it.
source tools/device_env.sh cache_gpu || exit $?
timeout 270 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --relay-weight --rules dispatch,cands \
  --shapes 656:8936,7880:12112,16008:712,10360:7088,9080:6632,4176:7192,15512:5096,8208:15080,4048:11664,8056:3856,2696:13664,872:3032 \
  --ms 96,176,256 --json $R/relaid.json > $R/relaid.txt 2>&1
tail -36 $R/relaid.txt | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
