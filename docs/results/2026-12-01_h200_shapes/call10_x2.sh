#!/bin/bash
# call 10 (2026-12-01, fourth session, nvidia-h200-x2, the last ~4 device minutes): issue 10's
# large-M rows with the 2026-12-01 kernels (new side only: no time for the A/B of next_x2.sh),
# then more decode points (issue 9) at K 768.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=. CODEGEN_CACHE_DIR=cache_tp2
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
TR="torchrun --nproc-per-node 2"
pack() { (cd $OUT && tar czf r.tgz r); }
timeout 120 $TR tools/bench_multi_gpu.py --modes rs,ar --ms 8192 --ks 768,2304 --link-mib 512 \
  --replays 10 --json $R/large.json > $R/large.txt 2>&1
echo "large rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/large.txt | cut -c1-120; pack
timeout 80 $TR tools/bench_multi_gpu.py --modes rs,ar --ms 16,64,256 --ks 768 --json $R/decode768.json > $R/decode768.txt 2>&1
echo "decode768 rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/decode768.txt | cut -c1-110; pack
rm -rf $OUT/r
