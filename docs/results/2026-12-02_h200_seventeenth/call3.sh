#!/bin/bash
# call 3 (seventeenth session, one H200): the refitted bounds (working tree: splitk c2 from 20 /
# c4 from 32 k-tiles, clusters of 2 to M 128 from 36, splitkw c2 22 / c4 32) held out against the
# bounds before (`bounds16`), worse of warm and cold, 3 rounds. Shapes drawn before the run
# (random.Random(20261217)): H1 clusters-of-2 region, H2 clusters-of-4 region, H3 clusters of 2
# at M 72..128, H4 splitkw; E: the earlier sessions' measured points the new bounds move (each
# measured against the old handoff). A: every GPU test + 30 s fuzz on the final code.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
P="python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,bounds16"
timeout 90 $P --shapes 1768:1816,2272:1640,3488:1288,2184:1624,1960:2000,1664:2160 --ms 1,16,48,64 --json $R/h1.json > $R/h1.txt 2>&1
timeout 90 $P --shapes 1168:2152,648:3496,1520:3584,1544:3104,1536:2952,1976:2448 --ms 16,64,128,160,192 --json $R/h2.json > $R/h2.txt 2>&1
timeout 60 $P --shapes 2880:3160,2112:2752,2560:2624,2432:2944 --ms 72,100,128 --json $R/h3.json > $R/h3.txt 2>&1
timeout 60 $P --shapes 1096:1544,1080:1832,544:1560,968:1832,1368:2432 --ms 513,640,900 --json $R/h4.json > $R/h4.txt 2>&1
timeout 120 $P --shapes 2048:2048,3584:1984,2560:1600,1600:1872,2752:2088,3392:1784,3072:3072,2944:2304,2048:1536,1536:3584,1344:2688,1280:2240 --ms 1,24,48,96 --json $R/e.json > $R/e.txt 2>&1
echo "B $(( $(date +%s)-T0 ))s"
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
