#!/bin/bash
# call 6 (2026-12-01, one H200): mode none candidate sweep (both regimes, twice) at the M where
# call 5's dispatch was lowest against torch.mm, to re-pick those table rows.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for s in 1 2; do
  timeout 200 python3 tools/bench_decode.py --both-regimes --ms 128,176,240,256,352,384,512 --ks 768,1536,2304 --json $R/sweep_$s.json > $R/sweep_$s.txt 2>&1
  echo "sweep $s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
