#!/bin/bash
# For the next session on one H200 (written 2026-12-02, twenty-first session; NOT run). Build
# cache_gpu from HEAD (docs/results/2026-12-02_h200_nineteenth/README.md has the command), carry
# it, run:   bash docs/results/2026-12-02_h200_twentyfirst/next_h200.sh
# 1. Every GPU test + fuzz on HEAD (call 4 ran the final dispatch's GPU tests; fuzz last ran in
#    call 3, before UNALIGNED_SPLITK_YIELDS_TO narrowed the deferral).
# 2. Fit data for the re-laid layout's remaining misses (call 5: the pick 0.952 of the best):
#    every candidate with W re-laid at wide N (N 4096..16384, where the tile schedule's
#    cta_group 1 won at M 256) x M 120 / 200 / 256 / 320.
source tools/device_env.sh cache_gpu || exit $?
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
SHAPES=16344:13744,6232:3024,10792:10008,15168:3400,10304:7992,10104:13320,8392:9136,9208:8848,6512:11880,13912:6152,12440:16112,12920:15144
timeout 300 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --relay-weight --rules dispatch,cands \
  --shapes $SHAPES --ms 120,200,256,320 --json $R/relaid.json > $R/relaid.txt 2>&1
tail -2 $R/relaid.txt | cut -c1-200
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
