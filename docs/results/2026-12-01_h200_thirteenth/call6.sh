#!/bin/bash
# call 6 (thirteenth session, one H200): every GPU test on the review mend (8d071b0 and later:
# op.arch's refusal of a fixed tile width an arch cannot serve, contract_mismatch strict without
# N, tuning rows past N); kernels as in calls 2-5 (cache_all).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
timeout 150 python3 -m pytest -q -m gpu tests/gpu > $R/gpu_tests.txt 2>&1; echo "rc=$?"; tail -2 $R/gpu_tests.txt
cd $OUT && tar czf r.tgz r && rm -rf r
