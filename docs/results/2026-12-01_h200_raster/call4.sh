#!/bin/bash
# call 4 (2026-12-01, one H200): the epilogue's cost, measured right this time: tile kernels
# whose accumulator stays live but with no epilogue (generated/diag_noepi) or with the staging
# to shared memory but no TMA store (generated/diag_nostore), against the real ones.
# (call 3's no-epilogue build let ptxas drop 6 of 8 HGMMAs: its numbers are void.)
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for s in real1 noepi1 nostore1 nostore2 noepi2 real2; do
  C=generated; case $s in noepi*) C=generated/diag_noepi ;; nostore*) C=generated/diag_nostore ;; esac
  CODEGEN_CACHE_DIR=$C timeout 70 python3 $D/diag_time.py $s $R/e_$s.json 512,2048,8192 768,2304 > $R/e_$s.txt 2>&1
  echo "epi $s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
