#!/bin/bash
# Call 4 of the twenty-first session (2026-12-02), one H200, cache_gpu carried. Held out:
# dispatch.UNALIGNED_SPLITK_YIELDS_TO (fitted to call 3) at 14 fresh small-N shapes off the
# lines (seed 20261245) x M 144 / 200 / 288 / 400, dispatch vs splitk20; then the GPU tests on
# this tree (the final dispatch; no template changed since call 1's cache).
source tools/device_env.sh cache_gpu || exit $?
timeout 150 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,splitk20 \
  --shapes 1944:7896,1120:2168,1152:6816,1176:12632,752:2632,1248:9368,1176:10256,1256:15656,1336:9544,1360:15176,1064:6360,816:8856,1160:3600,904:8224 \
  --ms 144,200,288,400 --json $R/splitk.json > $R/splitk.txt 2>&1
tail -2 $R/splitk.txt | cut -c1-200
timeout 150 python3 -m pytest -m gpu tests/gpu -q > $R/gpu_tests.log 2>&1; tail -1 $R/gpu_tests.log
grep -E "^FAILED" $R/gpu_tests.log | head -20
gzip $R/gpu_tests.log
cd $OUT && tar czf r.tgz r && rm -rf r
