#!/bin/bash
# call 3 (twenty-eighth session, one H200): where mode none's dispatch stands after the
# session's change, unbiased: 12 fresh random shapes (seed 2804: N 1024..16383, K 512..16383,
# multiples of 8, every K class: on the lines, on 32-byte sectors, 16 bytes off) x M 16 / 48 /
# 96 / 160 / 224 / 288 / 384 / 512, every candidate, warm and cold, the dispatch against
# `l2share27` (the rows-on-sectors model set back). Also fit data for the next session.
# Prediction: ~0.93x torch.mm, ~0.975 of the best candidate; 3 of 96 moved (host replay: this
# draw has 4 shapes on sectors, their moves at M 160..512), ~1.1x where moved.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 400 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,l2share27,cands \
  --ms 16,48,96,160,224,288,384,512 --shapes 5880:2568,1240:14016,4856:10328,1168:4016,8232:4352,1288:5152,2240:6872,1464:8720,11584:5392,10416:2792,7064:696,3832:16120 \
  --json $R/sweep.json > $R/sweep.txt 2>&1; echo "rc=$?"
echo "A $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/sweep.txt | tail -4
cd $OUT && tar czf r.tgz r && rm -rf r
