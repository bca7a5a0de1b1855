#!/bin/bash
# call 3 (thirtieth session, one H200): the streamk rule held out, and every GPU test.
#  1. every GPU test + 20 s fuzz (the fuzzer takes streamk too) on the session's HEAD.
#  2. H (held out): 10 fresh shapes (seed 3002: N 6144..16383, K 6144..16383 off the 128-byte
#     lines) x M 336 / 384, plus N 15264 K 9736 M 384 (a tile256c2 pick measured at 0.81x
#     torch.mm in the twenty-first session): the dispatch (the rule: streamk256c1) against
#     `nostreamk30` (the rule off) and every candidate.
#  3. I (informative, outside the rule): the same shapes at M 304 (three row tiles below
#     STREAMK_MIN_M) and 4 shapes with rows on the lines at M 384: dispatch, streamk256c1/c2.
# Prediction (from calls 1-2): at the rule's points the dispatch gains ~1.04x over `nostreamk30`
# (0.94x..1.08x per point); M 304 near 1.0x; rows on the lines unknown.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; echo "device_check rc=$?"
tail -4 $R/dc.txt
echo "checks $(( $(date +%s)-T0 ))s"
timeout 230 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,nostreamk30,streamk256c1,streamk256c2,cands \
  --points 6200:7160:336,6200:7160:384,12464:15648:336,12464:15648:384,13584:6952:336,13584:6952:384,6192:8792:336,6192:8792:384,11464:6320:336,11464:6320:384,15872:11768:336,15872:11768:384,13200:8160:336,13200:8160:384,14968:12688:336,14968:12688:384,13320:16200:336,13320:16200:384,9328:7968:336,9328:7968:384,15264:9736:384 \
  --json $R/h.json > $R/h.txt 2>&1; echo "H rc=$? $(( $(date +%s)-T0 ))s"
LEFT=$(( 560 - ($(date +%s)-T0) ))
timeout $LEFT python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,nostreamk30,streamk256c1,streamk256c2 \
  --points 6200:7160:304,12464:15648:304,13584:6952:304,6192:8792:304,11464:6320:304,15872:11768:304,13200:8160:304,14968:12688:304,13320:16200:304,9328:7968:304,7880:13824:384,13336:13184:384,12264:11264:384,14632:6848:384 \
  --json $R/i.json > $R/i.txt 2>&1; echo "I rc=$? $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
