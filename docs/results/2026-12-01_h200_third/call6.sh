#!/bin/bash
# call 6 (2026-12-01, third session, one H200): why bench_decode times mode none at M = 512,
# K = 2304 at 26-28 us where kernel_gaps' trace gives 24 us per call: kernel_gaps now also times
# the same graph with CUDA events (as graph_time_us does) just before profiling it; run it and
# bench_decode --dispatch-only back to back, twice, same shapes and replays.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
for s in 1 2; do
  timeout 60 python3 tools/probes/kernel_gaps.py --ms 384,512 --ks 2304 --replays 30 --json $R/gaps_$s.json > $R/gaps_$s.txt 2>&1
  timeout 60 python3 tools/bench_decode.py --dispatch-only --ms 384,512 --ks 2304 --json $R/d_$s.json > $R/d_$s.txt 2>&1
  timeout 60 python3 tools/bench_decode.py --dispatch-only --ms 512 --ks 2304 --json $R/d1_$s.json > $R/d1_$s.txt 2>&1
  grep -h "K=" $R/gaps_$s.txt; grep -h " 2304 " $R/d_$s.txt $R/d1_$s.txt
done
cd $OUT && tar czf r.tgz r && rm -rf r
