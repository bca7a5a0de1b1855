#!/bin/bash
# call 5 (2026-12-01, fourth session, one H200): the committed state (wave-fill rule, stream
# order, interleaved timing): device_check (GPU tests incl. tests/gpu/test_stream_order_gpu.py,
# fuzz), then bench_decode with its interleaved rounds (a sweep at two M, a dispatch-only row set
# at N = 4096, which now dispatches by the fill rule).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 90 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/bench_decode.py --both-regimes --ms 256,512 --ks 768 --json $R/sweep.json > $R/sweep.txt 2>&1
echo "sweep rc=$? $(( $(date +%s)-T0 ))s"; grep -v "^ " $R/sweep.txt | cut -c1-150
timeout 120 python3 tools/bench_decode.py --dispatch-only --both-regimes --n 4096 --ks 2048,7168 --ms 16,64,128,192,256,320,384,448,512 --json $R/d4096.json > $R/d4096.txt 2>&1
echo "d4096 rc=$? $(( $(date +%s)-T0 ))s"; grep -v "^ " $R/d4096.txt | cut -c1-150
cd $OUT && gzip -9 r/dc/fuzz_gpu.log; tar czf r.tgz r && rm -rf r
