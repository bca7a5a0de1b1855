#!/bin/bash
# call 5 (thirtieth session, one H200): streamk in clusters of 3 (BN 192) and 4 (BN 256) along M
# (each CTA loads 64 W rows and multicasts them), for three / four row tiles without the padded
# row tile of a CTA pair; every GPU test.
#  1. tests/gpu/test_streamk.py (every (BN, cta_group) pair).
#  2. C: call 3's ten fresh shapes at M 336 / 384 and four earlier shapes at M 384: dispatch,
#     streamk192c3, streamk256c1.
#  3. D: five of them and N 13944 K 14312 at M 512: dispatch, streamk256c4, streamk256c2.
#  4. every GPU test + 20 s fuzz.
# Prediction: streamk192c3 1.1x-1.2x streamk256c1 at three row tiles (W multicast to 3 CTAs:
# a third of W's L2 -> SM traffic), ~1.0x-1.05x the dispatch there; streamk256c4 ~1.05x
# streamk256c2 at M 512.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 100 python3 -m pytest -m gpu -q -x tests/gpu/test_streamk.py > $R/streamk_tests.txt 2>&1
echo "streamk tests rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/streamk_tests.txt | cut -c1-300
timeout 75 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,streamk192c3,streamk256c1 \
  --points 6200:7160:336,6200:7160:384,12464:15648:336,12464:15648:384,13584:6952:336,13584:6952:384,6192:8792:336,6192:8792:384,11464:6320:336,11464:6320:384,15872:11768:336,15872:11768:384,13200:8160:336,13200:8160:384,14968:12688:336,14968:12688:384,13944:14312:384,15984:7592:384,14704:12912:384,11792:11912:384 \
  --json $R/c.json > $R/c.txt 2>&1; echo "C rc=$? $(( $(date +%s)-T0 ))s"
timeout 30 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,streamk256c4,streamk256c2 \
  --points 6200:7160:512,12464:15648:512,13584:6952:512,15872:11768:512,14968:12688:512,13944:14312:512 \
  --json $R/d.json > $R/d.txt 2>&1; echo "D rc=$? $(( $(date +%s)-T0 ))s"
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; echo "device_check rc=$?"
tail -4 $R/dc.txt
echo "all $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
