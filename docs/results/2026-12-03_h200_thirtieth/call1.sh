#!/bin/bash
# call 1 (thirtieth session, one H200): the streamk schedule (mode none, sm_90a; new).
#  1. tests/gpu/test_streamk.py (correctness: rows, budgets, flags across ops and calls, graph
#     replay, two streams, the error record).
#  2. A: streamk256c1 / c2 against every candidate and the dispatch at 25 points where the tile
#     schedule's last wave is short (large N, M 256..4096) plus sanity points (whole waves).
#  3. the rest of the GPU suite, in the time left.
# Prediction: compute-bound points with a short last wave (e.g. N 13944 K 14312 M 384: 165 tiles
# of 128 x 256 on 132 SMs, best kernel 0.68x torch.mm) gain 1.2x-1.4x over tile256; points whose
# tiles fill whole waves are within 2% of tile256 (no piece is split there).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 python3 -m pytest -m gpu -q -x tests/gpu/test_streamk.py > $R/streamk_tests.txt 2>&1
echo "streamk tests rc=$? $(( $(date +%s)-T0 ))s"; tail -15 $R/streamk_tests.txt | cut -c1-300
timeout 280 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,cands,streamk256c1,streamk256c2 \
  --points 13944:14312:256,13944:14312:384,13944:14312:512,15984:7592:256,15984:7592:384,15984:7592:640,11792:11912:384,11792:11912:768,14704:12912:384,14520:2688:384,14520:2688:1024,7168:2304:512,7168:2304:1024,7168:2304:2048,7168:2304:4096,7168:8192:768,7168:8192:1536,28672:4096:640,5120:5120:1024,5120:5120:3072,3072:8192:1024,4096:14336:256,4096:14336:512,8448:4096:512,8192:8192:4096 \
  --json $R/a.json > $R/a.txt 2>&1; echo "A rc=$? $(( $(date +%s)-T0 ))s"
cut -c1-200 $R/a.txt | tail -30
LEFT=$(( 560 - ($(date +%s)-T0) ))
if [ $LEFT -gt 60 ]; then
  timeout $LEFT python3 -m pytest -m gpu -q tests/gpu --deselect tests/gpu/test_streamk.py > $R/gpu_tests.txt 2>&1
  echo "gpu tests rc=$? $(( $(date +%s)-T0 ))s"; tail -5 $R/gpu_tests.txt | cut -c1-300
fi
cd $OUT && tar czf r.tgz r && rm -rf r
