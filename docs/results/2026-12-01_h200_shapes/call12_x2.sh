#!/bin/bash
# call 12 (2026-12-01, fourth session, nvidia-h200-x2): issue 9's K = 2304 points not yet in
# calls 9-11 (M 32, 64, 256), and M 16/128 again (run-to-run spread).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=. CODEGEN_CACHE_DIR=cache_tp2
R=$OUT/r; mkdir -p $R
timeout 60 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py --modes rs,ar --ms 16,32,64,128,256 --ks 2304 --json $R/decode2304.json > $R/decode2304.txt 2>&1
echo "rc=$?"; grep -E "^\s+(rs|ar) " $R/decode2304.txt | cut -c1-110
cd $OUT && tar czf r.tgz r && rm -rf r
