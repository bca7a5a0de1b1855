#!/bin/bash
# Call 6 of the twenty-first session (2026-12-02), one H200, cache_gpu carried. Held out: the
# candidate dispatch.WEIGHT_ON_LINES_SPLITKW (off in the code; fitted to call 5) with W re-laid
# and x contiguous, at 14 fresh random shapes off the lines (seed 20261247: the first 14 of 60
# where it moves at least one of the M) x M 96 / 176 / 256 / 352; dispatch vs relaidsplitkw.
source tools/device_env.sh cache_gpu || exit $?
timeout 150 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --relay-weight --rules dispatch,relaidsplitkw \
  --shapes 4920:2696,5016:10216,6872:8584,5296:2888,4880:13344,1696:5264,4432:12024,4560:10232,3320:12040,6424:5256,6576:5048,7856:9896,6256:14960,3512:10384 \
  --ms 96,176,256,352 --json $R/relaid_ab.json > $R/relaid_ab.txt 2>&1
tail -3 $R/relaid_ab.txt | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
