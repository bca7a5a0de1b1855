#!/bin/bash
# call 5 (sixteenth session, one H200; kernels as calls 2-4): the final code (clusters of 2 to M
# 128 from 64 k-tiles, choose_ragged_splitkw removed). A: every GPU test + 40 s fuzz. B: the
# op's dispatch at 4 of call 4's held-out shapes (it should now run splitk c2 at M 72..128),
# warm and cold, against splitk-c2 fixed.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 220 bash tools/device_check.sh --fuzz-s 40 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 60 python3 tools/probes/choice_ab.py \
  --shapes 2560:8192,3584:6144,2752:7168,3328:4544 --ms 72,128 --rounds 3 --both-regimes \
  --rules dispatch,splitk-c2 --json $R/probe.json > $R/probe.txt 2>&1
tail -8 $R/probe.txt | cut -c1-220
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
