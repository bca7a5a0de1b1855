#!/bin/bash
# call 4 (seventeenth session, one H200): the splitk spread clause (clusters of 2, token tile 128,
# M 129..512, every (W tile, token tile) pair a cluster at once; from 44 k-tiles) after the
# cheaper handoff. F (fit): 6 shapes chosen before the run at 25..42 k-tiles; H (held out, the
# rule is written from F alone first): 6 random shapes (random.Random(202612174), 24..42
# k-tiles); W: clusters of 4 at token tile 128 where the clause already applies (K >= 44 tiles).
# Fixed kernels against the dispatch, worse of warm and cold, 3 rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
P="python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,splitk128c2,splitk128c4"
timeout 100 $P --shapes 512:1600,768:2048,1024:2496,1280:1728,1536:2304,2048:2688 --ms 160,256,384,448 --json $R/f.json > $R/f.txt 2>&1
echo "F $(( $(date +%s)-T0 ))s"
timeout 100 $P --shapes 952:2276,552:1980,576:2636,1416:1524,1112:2108,512:1748 --ms 160,256,384,448 --json $R/h.json > $R/h.txt 2>&1
echo "H $(( $(date +%s)-T0 ))s"
timeout 60 $P --shapes 640:4096,1024:6144,768:3200 --ms 160,256,384,448 --json $R/w.json > $R/w.txt 2>&1
echo "W $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
