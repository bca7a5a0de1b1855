#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
timeout 60 torchrun --nproc-per-node 2 tools/probes/tma_hol_probe.py out/probe/tma_hol_probe.cubin > $R/tma_hol.txt 2>&1; echo rc=$? >> $R/tma_hol.txt
timeout 40 torchrun --nproc-per-node 2 tools/probes/link_push_pull.py --mib 256 > $R/push_pull.txt 2>&1; echo rc=$? >> $R/push_pull.txt
timeout 50 torchrun --nproc-per-node 2 tools/probes/tma_push_probe.py out/probe/tma_push_probe.cubin > $R/tma_push.txt 2>&1; echo rc=$? >> $R/tma_push.txt
cd $OUT && tar czf r.tgz r && rm -rf r
