#!/bin/bash
# call 5 (fourteenth session, one H200): every GPU test and 45 s of fuzz on the final code (rs/ar
# weigh 160 / 192 where BNS divides N too: a dispatch change only; kernels as in call 3).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 300 bash tools/device_check.sh --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "A $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
