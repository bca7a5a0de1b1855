#!/bin/bash
# call 4 (sixteenth session, one H200; kernels as call 3). A: splitk with clusters of 2 at M
# 65..128 (dispatch.SPLITK_MAX_M[2] = 64, fitted in the fifth session as "a wash at M 96..128";
# call 2 saw it 1.05x-1.21x the pick at 4 of 5 shapes at M 128): the op's dispatch against
# splitk-c2 (token tile 128), warm and cold. Shapes chosen before the run: a fit set (first 6)
# and a held-out set (last 6); N within one wave of clusters of 2 (<= 66 W tiles), K >= 34
# k-tiles, N % 64 == 0 and not. B: the fifteenth session's splitkw rule (fitted warm only) cold:
# dispatch against nosplitkw at 6 of its shapes, warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 150 python3 tools/probes/choice_ab.py \
  --shapes 2048:4096,3072:3072,2944:2304,2200:6000,3904:5000,3000:8192 \
  --ms 72,96,112,128 --rounds 3 --both-regimes --rules dispatch,splitk-c2 \
  --json $R/fit.json > $R/fit.txt 2>&1
tail -24 $R/fit.txt | cut -c1-220
echo "A1 $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/choice_ab.py \
  --shapes 2560:8192,3584:6144,3400:2600,2752:7168,3328:4544,2480:3000 \
  --ms 72,96,112,128 --rounds 3 --both-regimes --rules dispatch,splitk-c2 \
  --json $R/held.json > $R/held.txt 2>&1
tail -24 $R/held.txt | cut -c1-220
echo "A2 $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/choice_ab.py \
  --shapes 576:3120,528:3480,512:3824,1320:1880,704:8192,1440:3032 \
  --ms 530,1000 --rounds 3 --both-regimes --rules dispatch,nosplitkw \
  --json $R/kwcold.json > $R/kwcold.txt 2>&1
tail -12 $R/kwcold.txt | cut -c1-220
echo "B $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
