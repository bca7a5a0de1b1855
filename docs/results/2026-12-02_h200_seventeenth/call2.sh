#!/bin/bash
# call 2 (seventeenth session, one H200): the dispatch bounds after the cheaper handoff (call 1:
# splitk c2 -0.7..-0.9 us, c4 -1.3..-3.1 us). Shapes chosen before the run, just below the
# bounds fitted against the old kernels (worse of warm and cold weight, 3 rounds):
# A: clusters of 2 below 34 k-tiles (N 2048..3584, 20..32 k-tiles, M 1 / 16 / 64);
# B: clusters of 4 below 64 k-tiles (N 768..1792, 32..60 k-tiles, M 1 / 16 / 64 / 128);
# C: clusters of 2 at M 72..128 below 64 k-tiles (36..56);
# D: splitkw below its bounds (c2 24, c4 40 k-tiles) at M 513 / 768.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
P="python3 tools/probes/choice_ab.py --rounds 3 --both-regimes"
timeout 150 $P --shapes 2048:1280,2048:1600,2560:1536,2560:1856,3072:1344,3072:1728,3584:1536,3584:2048,2304:2048,2816:1920 \
  --ms 1,16,64 --rules dispatch,splitk-c2,splitk-c4 --json $R/a.json > $R/a.txt 2>&1
echo "A $(( $(date +%s)-T0 ))s"
timeout 150 $P --shapes 1024:2048,1024:3072,1280:2560,1536:3584,1792:2304,1152:3840,1664:3200,768:2816 \
  --ms 1,16,64,128 --rules dispatch,splitk-c2,splitk-c4 --json $R/b.json > $R/b.txt 2>&1
echo "B $(( $(date +%s)-T0 ))s"
timeout 80 $P --shapes 2560:2304,3072:3072,2048:3584,3328:2816 \
  --ms 80,112,128 --rules dispatch,splitk-c2 --json $R/c.json > $R/c.txt 2>&1
echo "C $(( $(date +%s)-T0 ))s"
timeout 80 $P --shapes 704:1408,1088:1472,576:2304,512:2048,1280:1792,640:2432 \
  --ms 513,768 --rules dispatch,splitkw128c2,splitkw128c4 --json $R/d.json > $R/d.txt 2>&1
echo "D $(( $(date +%s)-T0 ))s"
tail -n 3 $R/*.txt | cut -c1-160
cd $OUT && tar czf r.tgz r && rm -rf r
