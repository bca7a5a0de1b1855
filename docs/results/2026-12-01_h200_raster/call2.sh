#!/bin/bash
# call 2 (2026-12-01, one H200): the grouped order in every tile kernel (rs/ar units follow):
# GPU tests + fuzz, then rs/ar on two virtual ranks old (generated/ab_old, 3b222c0) / new, ABBA.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
( timeout 170 python3 -m pytest -m gpu tests/gpu -q 2>&1 | tail -15 ) > $R/gpu_tests.txt
echo "gpu tests done $(( $(date +%s)-T0 ))s"; tail -1 $R/gpu_tests.txt
( timeout 60 python3 tools/fuzz_gpu.py --cases 1000 --budget-s 40 --json $R/fuzz.json 2>&1 | tail -4 ) > $R/fuzz.txt
echo "fuzz done $(( $(date +%s)-T0 ))s"; tail -1 $R/fuzz.txt
for s in new1 old1 old2 new2; do
  C=generated; case $s in old*) C=generated/ab_old ;; esac
  CODEGEN_CACHE_DIR=$C timeout 80 python3 $D/fused_ab.py $s $R/f_$s.json 256,512,1024,2048,4096,8192,16384 768,2304 > $R/f_$s.txt 2>&1
  echo "$s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
