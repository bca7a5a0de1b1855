#!/bin/bash
# For the next session on one H200 (written 2026-12-02, sixteenth session; NOT run). What is the
# ~3.9 us a splitk / splitkw call spends beyond its k-tiles (the fifteenth session's fit: splitkw
# ~ 0.55 x tile + 3.9 us)? Batching the handoff's DSMEM loads did not change it (call 1: 1.004).
# Time the fixed kernels over a K sweep at fixed N and M: time = intercept + slope x k-tiles per
# CTA; the intercept of splitk / splitkw against swapab's (no handoff) and the tile kernel's is
# the handoff + prologue. Then, if the intercept difference is ~3-4 us, look at the cluster
# barriers and the `fence.acq_rel.cluster` (SASS: MEMBAR.ALL.GPU) around them before anything
# else. Build cache_gpu from HEAD first (see the session README), carry it, run:
#   bash docs/results/2026-12-02_h200_sixteenth/next_h200.sh
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
for K in 512 1024 2048 4096 8192 16384; do
  timeout 60 python3 tools/probes/choice_ab.py --shapes 1024:$K --ms 16 --rounds 3 \
    --rules swapab16c2,splitk16c2,splitk16c4,splitkw128c2,splitkw128c4 \
    --json $R/m16_k$K.json > $R/m16_k$K.txt 2>&1
  timeout 60 python3 tools/probes/choice_ab.py --shapes 1024:$K --ms 513 --rounds 3 \
    --rules tile128c2,splitkw128c2,splitkw128c4 --json $R/m513_k$K.json > $R/m513_k$K.txt 2>&1
  tail -2 $R/m16_k$K.txt $R/m513_k$K.txt | cut -c1-200
done
cd $OUT && tar czf r.tgz r && rm -rf r
