#!/bin/bash
# call 3 (2026-12-01, one H200): (a) mode none at the sizes where the tables pick tile kernels
# (M 240..1024), new vs old, for no regression; (b) the epilogue's cost: tile kernels with no
# epilogue (generated/diag_noepi, results wrong on purpose) against the real ones, ABBA.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
B="timeout 70 python3 tools/bench_decode.py --both-regimes --ms 240,256,480,512,1024 --ks 768,1536,2304"
for s in new1 old1 old2 new2; do
  C=generated; case $s in old*) C=generated/ab_old ;; esac
  CODEGEN_CACHE_DIR=$C $B --json $R/d_$s.json > $R/d_$s.txt 2>&1
  echo "decode $s done $(( $(date +%s)-T0 ))s"
done
for s in real1 noepi1 noepi2 real2; do
  C=generated; case $s in noepi*) C=generated/diag_noepi ;; esac
  CODEGEN_CACHE_DIR=$C timeout 70 python3 $D/diag_time.py $s $R/e_$s.json 512,2048,8192 768,2304 > $R/e_$s.txt 2>&1
  echo "epi $s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
