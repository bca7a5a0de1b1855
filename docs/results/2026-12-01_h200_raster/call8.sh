#!/bin/bash
# call 8 (2026-12-01, one H200): where the epilogue's time goes (diagnostic builds of the mode
# none tile kernels, timing only): 4 store stages for every width (diag_epi4), no named
# barriers in the epilogue (diag_nobar, racy), no stmatrix staging (diag_nostsm), vs real.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for s in real1 epi4_1 nobar1 nostsm1 nostsm2 nobar2 epi4_2 real2; do
  C=generated; case $s in real*) ;; *) C=generated/diag_${s%_*}; C=${C%[12]} ;; esac
  CODEGEN_CACHE_DIR=$C timeout 60 python3 $D/diag_time.py $s $R/e_$s.json 512,2048,8192 768,2304 > $R/e_$s.txt 2>&1
  echo "$s ($C) done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
