#!/bin/bash
# call 9 (2026-12-01, fourth session): nvidia-h200-x2 was lent at the end of the session with
# ~7 device minutes left. The 2026-12-01 kernels (PDL wait, grouped order, deferred stores,
# token tiles 80/96/112) and the stream-order change on two real ranks, in order of value:
# correctness (quick), the serving layer, a few decode points of issue 9's table, fuzz.
# Kernels: cache_tp2 (codegen build --tp 2 --arch sm_90a --transport unicast --cache-dir
# cache_tp2, the third session's tables in cache_tp2/tuning; narrowed for the carry limit).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=. CODEGEN_CACHE_DIR=cache_tp2
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
TR="torchrun --nproc-per-node 2"
pack() { (cd $OUT && tar czf r.tgz r); }
timeout 150 $TR tests/multigpu/run_correctness.py --quick > $R/correctness.log 2>&1
echo "correctness rc=$? $(( $(date +%s)-T0 ))s"; tail -3 $R/correctness.log; pack
timeout 90 $TR tests/multigpu/run_tp_linear.py --modes ar,rs > $R/tp_linear.log 2>&1
echo "tp_linear rc=$? $(( $(date +%s)-T0 ))s"; tail -3 $R/tp_linear.log; pack
timeout 120 $TR tools/bench_multi_gpu.py --modes rs,ar --ms 16,128,512 --ks 2304 --json $R/decode.json > $R/decode.txt 2>&1
echo "decode rc=$? $(( $(date +%s)-T0 ))s"; tail -12 $R/decode.txt | cut -c1-160; pack
timeout 60 $TR tests/multigpu/run_correctness.py --fuzz 100000 --fuzz-budget-s 30 > $R/fuzz.log 2>&1
echo "fuzz rc=$? $(( $(date +%s)-T0 ))s"; tail -2 $R/fuzz.log
pack; rm -rf $OUT/r
