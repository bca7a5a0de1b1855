#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
timeout 120 torchrun --nproc-per-node 2 tools/probes/link_push_pull.py --mib 64,256,512 > $R/push_pull.txt 2>&1; echo rc=$? >> $R/push_pull.txt
cd $OUT && tar czf r.tgz r && rm -rf r
