#!/bin/bash
# call 7 (2026-12-01, one H200): the final state: GPU tests + fuzz, then mode none as dispatched
# with the re-picked tables (./tuning/) against torch.mm at every table M in 16..512, twice back
# to back and once after an elementwise kernel.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
( timeout 170 python3 -m pytest -m gpu tests/gpu -q 2>&1 | tail -15 ) > $R/gpu_tests.txt
echo "gpu tests done $(( $(date +%s)-T0 ))s"; tail -1 $R/gpu_tests.txt
( timeout 60 python3 tools/fuzz_gpu.py --cases 1000 --budget-s 40 --json $R/fuzz.json 2>&1 | tail -4 ) > $R/fuzz.txt
echo "fuzz done $(( $(date +%s)-T0 ))s"; tail -1 $R/fuzz.txt
MS=16,24,32,48,64,80,96,112,128,144,160,176,192,208,224,240,256,272,288,320,352,384,400,416,448,480,512
B="timeout 90 python3 tools/bench_decode.py --dispatch-only --both-regimes --ms $MS --ks 768,1536,2304"
for s in b2b1 b2b2 ew; do
  E=""; [ $s = ew ] && E="--after-elementwise"
  $B $E --json $R/n_$s.json > $R/n_$s.txt 2>&1
  echo "$s done $(( $(date +%s)-T0 ))s"
done
rm -f $R/fuzz.json
cd $OUT && tar czf r.tgz r && rm -rf r
