#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
log() { echo "$(date +%T) $*" >> $R/times.txt; }
log start
timeout 90 python3 tools/fuzz_gpu.py --cases 2000 --seed 20000 --budget-s 45 --json $R/fuzz1.json > $R/fuzz1.txt 2>&1; echo rc=$? >> $R/fuzz1.txt; log fuzz1
timeout 90 torchrun --nproc-per-node 2 tests/multigpu/run_correctness.py --fuzz 1000 --seed 30000 --fuzz-budget-s 40 > $R/fuzz_x2.txt 2>&1; echo rc=$? >> $R/fuzz_x2.txt; log fuzz2
timeout 90 torchrun --nproc-per-node 2 tests/multigpu/run_correctness.py --quick > $R/corr_quick.txt 2>&1; echo rc=$? >> $R/corr_quick.txt; log quick
timeout 60 torchrun --nproc-per-node 2 tools/probes/link_push_pull.py --mib 256 > $R/push_pull.txt 2>&1; echo rc=$? >> $R/push_pull.txt; log pp
timeout 60 torchrun --nproc-per-node 2 tools/probes/tma_push_probe.py out/probe/tma_push_probe.cubin > $R/tma_push.txt 2>&1; echo rc=$? >> $R/tma_push.txt; log tp
cd $OUT && tar czf r.tgz r && rm -rf r
