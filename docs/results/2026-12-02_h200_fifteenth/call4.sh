#!/bin/bash
# call 4 (fifteenth session, one H200): mode none at an N no multiple of 64 at decode sizes
# (call 3: 0.14x-0.45x torch.mm at M 256 with one token tile of 256, 0.37x at M 16..64 for N
# 1000, K 8192). The wave-fill rule now weighs the wide decode kernels there too (M <= 448).
# A: every GPU test; B: 5 ragged shapes x M 16 / 64 / 256 / 448: the op's dispatch, the rule
# before (nofill), and every candidate of the tuning sweep (tile widths past N, the wide decode
# kernels, splitkw c2 / c4), warm weight, 2 rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 150 python3 -m pytest -m gpu tests/gpu -q > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -E "^FAILED" $R/gpu_tests.txt | head
echo "A $(( $(date +%s)-T0 ))s"
timeout 330 python3 tools/probes/choice_ab.py \
  --shapes 4000:4096,1000:8192,2888:2880,7176:4096,1000:2048 \
  --ms 16,64,256,448 --rounds 2 --rules dispatch,nofill,cands \
  --json $R/probe.json > $R/probe.txt 2>&1
tail -22 $R/probe.txt | cut -c1-160
echo "B $(( $(date +%s)-T0 ))s"
gzip $R/gpu_tests.txt 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
