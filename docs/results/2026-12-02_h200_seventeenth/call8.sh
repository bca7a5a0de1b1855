#!/bin/bash
# call 8 (seventeenth session, one H200; kernels as call 7): mode none's tile width where a width
# divides N but one reaching past N would fill the waves better (the wave model over every width:
# dispatch.choose_bn's cost, predicted 1.1x-1.7x at these points). F (fit): 8 shapes the model
# flags, K 4096, M 768 / 1024 / 2048; H (held out; the rule is written from F alone first): 8
# random shapes (random.Random(2026121777)) the model flags, M 896 / 1536 / 3072. Every tile
# width (clusters of 2) and the dispatch, warm weight, 3 rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
P="python3 tools/probes/choice_ab.py --rounds 3 --rules dispatch,tile128c2,tile160c2,tile192c2,tile224c2,tile256c2"
timeout 75 $P --shapes 4416:4096,3264:4096,1728:4096,2944:4096,2432:4096,4160:4096,3328:4096,1600:4096 \
  --ms 768,1024,2048 --json $R/f.json > $R/f.txt 2>&1
echo "F $(( $(date +%s)-T0 ))s"
timeout 75 $P --shapes 4928:3840,7552:4480,5184:2560,5568:6400,7872:3264,7488:2368,5248:5952,3200:3392 \
  --ms 896,1536,3072 --json $R/h.json > $R/h.txt 2>&1
echo "H $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
