#!/bin/bash
# call 5 (2026-12-01, third session, one H200): the committed kernels with programmatic
# dependent launch on (device_check --pdl), and the timing helpers after their refactor
# (graph_timing.captured_graph shared by kernel_gaps.py and graph_time_us).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 250 bash tools/device_check.sh --pdl --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1
echo "device_check --pdl done $(( $(date +%s)-T0 ))s"; cat $R/dc.txt
timeout 60 python3 tools/probes/kernel_gaps.py --ms 352,384,512 --ks 768,2304 --json $R/gaps.json > $R/gaps.txt 2>&1
timeout 60 python3 tools/bench_decode.py --dispatch-only --both-regimes --ms 352,384,512,2048 --ks 2304 --json $R/d.json > $R/d.txt 2>&1
echo "done $(( $(date +%s)-T0 ))s"; cat $R/gaps.txt; tail -6 $R/d.txt
cd $OUT && tar czf r.tgz r && rm -rf r
