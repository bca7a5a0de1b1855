#!/bin/bash
# call 11 (2026-12-01, one H200): as call 10, the deferred epilogue now only when another tile
# follows (the last tile stores at once, as before): GPU tests + fuzz, new / old (generated/ab_old,
# HEAD before the change) ABBA without checks (diag_time.py) and as dispatched (bench_decode).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
( timeout 150 python3 -m pytest -m gpu tests/gpu -q 2>&1 | tail -15 ) > $R/gpu_tests.txt
echo "gpu tests done $(( $(date +%s)-T0 ))s"; tail -1 $R/gpu_tests.txt
( timeout 30 python3 tools/fuzz_gpu.py --cases 1000 --budget-s 15 2>&1 | tail -4 ) > $R/fuzz.txt
echo "fuzz done $(( $(date +%s)-T0 ))s"; tail -1 $R/fuzz.txt
for s in new1 old1 old2 new2; do
  C=generated; case $s in old*) C=generated/ab_old ;; esac
  CODEGEN_CACHE_DIR=$C timeout 40 python3 $D/diag_time.py $s $R/e_$s.json 512,2048,8192 768,2304 > $R/e_$s.txt 2>&1
  echo "epi $s done $(( $(date +%s)-T0 ))s"
done
for s in new old; do
  C=generated; [ $s = old ] && C=generated/ab_old
  CODEGEN_CACHE_DIR=$C timeout 40 python3 tools/bench_decode.py --dispatch-only --both-regimes --ms 480,512,1024,2048,4096,8192,16384 --ks 768,1536,2304 --json $R/d_$s.json > $R/d_$s.txt 2>&1
  echo "dispatch $s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
