#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
log() { echo "$(date +%T) $*" >> $R/times.txt; }
log start
B="--modes rs,ar --ms 2048,4096,16384 --ks 768,2304 --baselines symm_rs,symm_two_shot --link-mib 0 --no-ours-gemm --replays 20"
for i in 1 2; do
  CODEGEN_CACHE_DIR=out/dev/genO timeout 100 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py $B --json $R/old$i.json > $R/old$i.log 2>&1; log old$i
  CODEGEN_CACHE_DIR=out/dev/genE timeout 100 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py $B --json $R/new$i.json > $R/new$i.log 2>&1; log new$i
done
cd $OUT && tar czf r.tgz r && rm -rf r
