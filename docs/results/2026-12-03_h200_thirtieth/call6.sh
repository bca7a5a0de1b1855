#!/bin/bash
# call 6 (thirtieth session, one H200): the streamk rule (dispatch.streamk_instead: at three row
# tiles from M 321 the rules' tile kernel in CTA pairs -> streamk192c3) held out: 16 fresh
# shapes (seeds 3005 / 3006) where the rules pick a tile kernel in pairs at M 352 / 384 (every
# one with rows off the lines: no shape with them on did), dispatch vs `nostreamk30` vs
# streamk192c3. Prediction (call 5, 10 points): ~1.09x over the rule off, 0.98x at worst.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 120 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,nostreamk30,streamk192c3 \
  --points 15400:8840:384,15456:12312:384,6912:4408:384,13832:8328:384,8152:8824:384,15680:4728:384,8112:7112:384,15616:11000:384,15824:11096:384,8112:9208:384,14344:14824:384,13808:13448:384,8376:10936:384,15296:4424:384,16032:3048:384,8264:16168:352 \
  --json $R/e.json > $R/e.txt 2>&1; echo "E rc=$? $(( $(date +%s)-T0 ))s"
cut -c1-200 $R/e.txt
cd $OUT && tar czf r.tgz r && rm -rf r
