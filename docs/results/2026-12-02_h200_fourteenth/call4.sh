#!/bin/bash
# call 4 (fourteenth session, one H200): rs/ar's tile widths 160 / 192 where a width of BNS
# (128 / 224 / 256) divides N too. rs/ar weigh 160 / 192 only where no width of BNS divides N
# (thirteenth session: the BNS rule was measured across two GPUs, the extra widths on virtual
# ranks only); call 3 found 192 11-13% faster than the BNS rule's 128 at M 1024 for N 4544
# against N 4608 (= 24 x 192). Measured here, two virtual ranks, graph replay, every width at
# cta_group 2 (a width not dividing N runs with its last N tile past N): fit N 3072, 4608, 5120,
# 6144 (K 2048 / 4096); held out (not looked at while choosing the rule) N 2560, 7680, 12288.
# Prediction: the wave rule over every dividing width (mode none's) within 3% of the best fixed
# width where it moves the pick, and 5-13% faster than the BNS rule at M 1024..2048 there.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
C=default,tile128c2,tile160c2,tile192c2,tile224c2,tile256c2
timeout 200 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 3072:2048,4608:4096,5120:2048,6144:4096 --ms 600,1024,2048,4096,8192 --choices $C \
  --rounds 3 --json $R/fit.json > $R/fit.txt 2>&1; tail -3 $R/fit.txt | cut -c1-200
echo "A $(( $(date +%s)-T0 ))s"
timeout 200 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 2560:4096,7680:2048,12288:2048 --ms 600,1024,2048,4096,8192 --choices $C \
  --rounds 3 --json $R/heldout.json > $R/heldout.txt 2>&1; tail -3 $R/heldout.txt | cut -c1-200
echo "B $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
