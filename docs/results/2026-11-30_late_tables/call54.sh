#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
log() { echo "$(date +%T) $*" >> $R/times.txt; }
log start
timeout 330 python3 tools/bench_decode.py --ms 16,24,32,48,64,80,96,112,128,144,160,176,192,208,224,240,256,272,288,320,352,384,400,416,448,480,512 --ks 768,1536,2304 --both-regimes --tune-out $R/tune_none --json $R/none_all.json > $R/none_all.txt 2>&1; log noneall
B="--modes rs,ar --replays 20 --link-mib 0 --no-ours-gemm"
timeout 120 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py $B --ms 16,32,64,80,96,112,128,160,192,256,320,384,448,512 --ks 768,1536,2304 --cold-weights --json $R/fused_cold.json --md $R/fused_cold.md > $R/fused_cold.txt 2>&1; echo rc=$? >> $R/fused_cold.txt; log fc
cd $OUT && tar czf r.tgz r && rm -rf r
