#!/bin/bash
# call 6 (2026-12-01, one H200): every kernel with "pdl" (the cg1 decode kernels now too):
# GPU tests, fuzz, PDL on/off A/B at decode sizes (back-to-back and after an elementwise kernel)
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
( timeout 150 python3 -m pytest -m gpu tests/gpu -q 2>&1 | tail -15 ) > $R/gpu_tests.txt
echo "gpu tests done $(( $(date +%s)-T0 ))s"; tail -1 $R/gpu_tests.txt
( timeout 100 python3 tools/fuzz_gpu.py --cases 1000 --budget-s 50 --json $R/fuzz.json 2>&1 | tail -4 ) > $R/fuzz.txt
echo "fuzz done $(( $(date +%s)-T0 ))s"; tail -1 $R/fuzz.txt
B="timeout 100 python3 tools/bench_decode.py --both-regimes --ms 16,24,32,48,64,80,96,112,128,144,160,192,256,384,512 --ks 768,2304"
for rep in 1 2; do
  for cfg in ON OFF; do
    E=""; [ $cfg = OFF ] && E="CODEGEN_DISABLE_PDL=1"
    env $E $B --json $R/b2b_${cfg}_$rep.json > $R/b2b_${cfg}_$rep.txt 2>&1
    env $E $B --after-elementwise --json $R/ew_${cfg}_$rep.json > $R/ew_${cfg}_$rep.txt 2>&1
    echo "$rep $cfg done $(( $(date +%s)-T0 ))s"
  done
done
cd $OUT && tar czf r.tgz r && rm -f r/*.txt r/*.json
