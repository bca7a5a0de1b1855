#!/bin/bash
# call 2 (thirtieth session, one H200): streamk with sets of lanes (the clusters of a set take
# the row blocks of one N tile at the same k-tiles, so W comes from DRAM about once per set).
# Call 1 found the plain stream-K (each cluster at its own k offset) 0.8x-0.97x the tile kernel
# where it split tiles: W read from DRAM once per row block.
#  1. tests/gpu/test_streamk.py.
#  2. A again (call 1's 25 points): dispatch, tile256c1/c2, streamk256c1/c2.
#  3. B: 15 fresh points (seed 3001: N 6144..16383, K 2048..16383, M 256..1536), the same rules.
#  4. every other GPU test in the time left (the tile template's loop bounds were rewritten).
# Prediction: where call 1 split tiles and lost (N 13944 K 14312 M 384 c1 0.97x, M 512 c1 0.77x
# of tile256) streamk now gains 1.1x-1.3x over tile256 of the same cta_group; whole-wave points
# stay within 2%.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 150 python3 -m pytest -m gpu -q tests/gpu/test_streamk.py > $R/streamk_tests.txt 2>&1
echo "streamk tests rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/streamk_tests.txt | cut -c1-300
RULES=dispatch,tile256c1,tile256c2,streamk256c1,streamk256c2
timeout 150 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules $RULES \
  --points 13944:14312:256,13944:14312:384,13944:14312:512,15984:7592:256,15984:7592:384,15984:7592:640,11792:11912:384,11792:11912:768,14704:12912:384,14520:2688:384,14520:2688:1024,7168:2304:512,7168:2304:1024,7168:2304:2048,7168:2304:4096,7168:8192:768,7168:8192:1536,28672:4096:640,5120:5120:1024,5120:5120:3072,3072:8192:1024,4096:14336:256,4096:14336:512,8448:4096:512,8192:8192:4096 \
  --json $R/a.json > $R/a.txt 2>&1; echo "A rc=$? $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules $RULES \
  --points 10912:13496:640,8528:7808:1536,10120:6680:512,11584:9840:512,12440:15296:768,12184:5512:1536,7600:11848:1024,6616:14944:1024,14504:2432:640,13400:16136:1536,9080:6312:640,13528:9008:256,11712:10080:384,11616:16376:512,12016:16000:1024 \
  --json $R/b.json > $R/b.txt 2>&1; echo "B rc=$? $(( $(date +%s)-T0 ))s"
LEFT=$(( 565 - ($(date +%s)-T0) ))
if [ $LEFT -gt 60 ]; then
  timeout $LEFT python3 -m pytest -m gpu -q tests/gpu --deselect tests/gpu/test_streamk.py > $R/gpu_tests.txt 2>&1
  echo "gpu tests rc=$? $(( $(date +%s)-T0 ))s"; tail -3 $R/gpu_tests.txt | cut -c1-300
fi
cd $OUT && tar czf r.tgz r && rm -rf r
