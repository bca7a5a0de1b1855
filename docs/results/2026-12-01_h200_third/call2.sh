#!/bin/bash
# call 2 (2026-12-01, third session, one H200): the interleaved deferred epilogue in every
# sm_90a tile kernel (mode none as in call 1; rs/ar now too), generated/ = working tree,
# generated/ab_old = HEAD 68898f8 (rs/ar tile tp2 BN 224/256):
#   1. device_check (GPU tests + fuzz);
#   2. rs/ar on two virtual ranks, new / old ABBA at fixed (BN, CTA group) (fused_fixed.py);
#   3. mode none candidate sweep at M 1024..16384, twice (both regimes), to re-pick the large-M
#      table rows with the interleaved kernels.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_third
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 250 bash tools/device_check.sh --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1
echo "device_check done $(( $(date +%s)-T0 ))s"; cat $R/dc.txt
for s in new1 old1 old2 new2; do
  C=generated; case $s in old*) C=generated/ab_old ;; esac
  CODEGEN_CACHE_DIR=$C timeout 70 python3 $D/fused_fixed.py $s $R/f_$s.json 1024,2048,8192,16384 768,2304 224x1,256x1,256x2 > $R/f_$s.txt 2>&1
  echo "fused $s done $(( $(date +%s)-T0 ))s"; tail -1 $R/f_$s.txt
done
for s in 1 2; do
  timeout 90 python3 tools/bench_decode.py --both-regimes --ms 1024,2048,4096,8192,16384 --ks 768,1536,2304 --json $R/sweep_$s.json > $R/sweep_$s.txt 2>&1
  echo "sweep $s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
