#!/bin/bash
# call 6 (seventeenth session, one H200): A: the splitkw bounds of call 2 (clusters of 2 from 22,
# of 4 from 32 k-tiles) held out at 8 random shapes (random.Random(202612176): 4 at 32..39 k-tiles,
# 4 at 22..23) against `bounds16` (24 / 40), M 513 / 640 / 900, worse of warm and cold. B: the
# rs / ar splitk kernels with the new handoff against 7512f6e's (cache_old), TP 2 on virtual
# ranks of the one GPU (exchange into local memory: not the NVLink picture), A B B A.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 90 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes \
  --rules dispatch,bounds16,splitkw128c2,splitkw128c4 \
  --shapes 512:2136,536:2448,440:1992,768:2352,1512:1432,1000:1368,1192:1368,800:1360 \
  --ms 513,640,900 --json $R/kw.json > $R/kw.txt 2>&1
echo "A $(( $(date +%s)-T0 ))s"
timeout 200 python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/abf \
  --reps 2 --timeout 45 -- python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 2048:4096,1024:8192 --ms 16,64 --rounds 3 \
  --choices splitk16c2,splitk16c4,splitk64c2,splitk64c4 --json {json}
echo "B $(( $(date +%s)-T0 ))s"
tail -n 4 $R/kw.txt | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
