#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
log() { echo "$(date +%T) $*" >> $R/times.txt; }
log start
timeout 150 python3 -m pytest -m gpu tests/gpu -q 2>&1 | tail -6 > $R/gpu_tests.txt; log gpu
timeout 150 torchrun --nproc-per-node 2 tests/multigpu/run_correctness.py --ms 1,2,15,16,17,63,64,65,127,255,400,511,4096,8205 --ks 768,2304 --configs 128x1 > $R/corr.txt 2>&1; echo rc=$? >> $R/corr.txt; log corr
timeout 120 python3 tools/bench_decode.py --ms 16,24,32,48,64,80,96,112,128,144,160,176,192,208,224,240,256,272,288,320,352,384,400,416,448,480,512 --ks 768,1536,2304 --both-regimes --json $R/none_final.json > $R/none_final.txt 2>&1; log nonefinal
B="--modes rs,ar --replays 20 --link-mib 0 --no-ours-gemm"
timeout 90 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py $B --ms 16,32,64,80,96,112,128,160,192,256,320,384,448,512 --ks 768,1536,2304 --json $R/fused_warm.json --md $R/fused_warm.md > $R/fused_warm.txt 2>&1; echo rc=$? >> $R/fused_warm.txt; log fw
timeout 100 torchrun --nproc-per-node 2 tests/multigpu/run_tp_linear.py --modes ar,rs > $R/tpl.txt 2>&1; echo rc=$? >> $R/tpl.txt; log tpl
timeout 100 torchrun --nproc-per-node 2 examples/llama_block_tp.py --check-only > $R/llama.txt 2>&1; echo rc=$? >> $R/llama.txt; log llama
cd $OUT && tar czf r.tgz r && rm -rf r
