#!/bin/bash
# call 5 (twenty-ninth session, one H200): the region that motivated the session, unbiased
# after the change: 6 fresh random shapes at N 2048..6143 with rows off the lines (seed 2904,
# K 2048..16383) x M 96 / 160 / 192 / 256, every candidate, the dispatch against `kwtiles28`
# (the session's two changes set back). HEAD 2af5327 (the kernels of call 4: no kernel changed).
# Prediction (host replay): 10 of 24 picks move (splitkw96 at M 96..192, one splitkw160c4),
# ~1.08x where moved; the region ~0.85x torch.mm (the twenty-eighth session's draw: 0.803x).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,kwtiles28,cands --ms 96,160,192,256 \
  --shapes 5056:6888,2776:7048,4664:10128,4128:15384,5864:8664,5680:16184 \
  --json $R/region.json > $R/region.txt 2>&1; echo "R rc=$? $(( $(date +%s)-T0 ))s"
cut -c1-160 $R/region.txt | tail -2
cd $OUT && tar czf r.tgz r && rm -rf r
