#!/bin/bash
# call 1 (twenty-ninth session, one H200): the splitkw kernels at token tiles 96 / 160 / 192
# (new: 5 / 3 / 2 stages) on the GPU for the first time.
#  1. every GPU test + 20 s fuzz (test_splitkw and the fuzzer take every SPLITKW_BNS tile).
#  2. A: the six shapes of the twenty-eighth session's call 3 where the best kernel built was
#     0.59x-0.89x torch.mm at M 96..384 (medium N, long K, rows off the lines), the dispatch
#     against every splitkw kernel and the best kernels call 3 found there.
#  3. B: six fresh shapes (seed 2901: N 1024..6143, K 4096..16383; 2 on 32-byte sectors, 2 16
#     bytes off, 2 on the lines) x M 64..352, every candidate (also the hold-out the twenty-
#     eighth session's splitk_candidate.py asked for).
# Prediction (the L2-traffic model with the new tiles, stages not modelled): splitkw160c4 the
# best at M 129..160 where N <= ~4000 and K >= 6000 (N 3832 K 16120 M 160: ~50 us against the
# 73 us of splitk160c2 and torch.mm's 46); 192 (2 stages) behind 160; 96 within 5% of 128.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; echo "device_check rc=$?"
tail -4 $R/dc.txt; grep -h "passed\|failed" $R/dc/*.log | tail -3
echo "checks $(( $(date +%s)-T0 ))s"
KW=splitkw96c2,splitkw96c4,splitkw128c2,splitkw128c4,splitkw160c2,splitkw160c4,splitkw192c2,splitkw192c4
timeout 150 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 \
  --rules dispatch,$KW,splitk160c2,splitk192c2,splitk128c2,tile128c2,tile160c2,swapab144c2 \
  --ms 96,160,192,224,288,384 --shapes 3832:16120,2240:6872,1464:8720,4856:10328,1168:4016,1240:14016 \
  --json $R/gap.json > $R/gap.txt 2>&1; echo "A rc=$? $(( $(date +%s)-T0 ))s"
timeout 230 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,cands \
  --ms 64,160,192,256,352 --shapes 6112:7888,5744:16080,3048:7640,3648:15784,1376:5312,4472:6912 \
  --json $R/fresh.json > $R/fresh.txt 2>&1; echo "B rc=$? $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
