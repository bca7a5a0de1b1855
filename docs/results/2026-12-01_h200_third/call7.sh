#!/bin/bash
# call 7 (2026-12-01, third session, one H200): call 6 showed CUDA events per call 0.2-2 us above
# the trace's kernel + gap, more for ours than torch.mm: a per-replay cost (the graph's launch)
# spread over the 20 calls of a graph. Same probe with 100 calls per graph (the per-replay part
# 5x smaller), then mode none as dispatched at decode sizes with 100 calls per graph.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 60 python3 tools/probes/kernel_gaps.py --ms 384,512 --ks 2304 --iters 100 --replays 10 --json $R/gaps100.json > $R/gaps100.txt 2>&1
grep -h "K=" $R/gaps100.txt
timeout 200 python3 tools/bench_decode.py --dispatch-only --both-regimes --iters 100 --replays 20 --ms 16,32,64,128,176,256,352,384,448,512 --ks 768,1536,2304 --json $R/d100.json > $R/d100.txt 2>&1
echo "done $(( $(date +%s)-T0 ))s"; grep -h "x |" $R/d100.txt | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
