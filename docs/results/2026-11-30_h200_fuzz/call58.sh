#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
timeout 330 torchrun --nproc-per-node 2 tests/multigpu/run_correctness.py --fuzz 400 --seed 5000 --fuzz-budget-s 240 > $R/fuzz_x2.txt 2>&1; echo rc=$? >> $R/fuzz_x2.txt
cd $OUT && tar czf r.tgz r && rm -rf r
