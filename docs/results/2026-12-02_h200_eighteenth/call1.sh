#!/bin/bash
# Eighteenth session, call 1 (one H200): every GPU test + 30 s fuzz on HEAD 320220c (the
# seventeenth session's tile-width rule and its edited N 2880 GPU test never ran on the GPU);
# splitkw clusters of 2 at 22..29 k-tiles against the tile schedule at its new width
# (`nosplitkw`); then a survey: mode none's dispatch against torch.mm at 20 random shapes
# (seed 20261202, N 256..16384, K 512..16384, both multiples of 8), worse of warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
timeout 110 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes \
  --rules dispatch,nosplitkw,splitkw128c2 \
  --shapes 1512:1432,1192:1368,1000:1368,800:1360,1400:1800,1600:1600,1088:1856 \
  --ms 513,640,768,900,1024 --json $R/kw_tile.json > $R/kw_tile.txt 2>&1
tail -4 $R/kw_tile.txt | cut -c1-200
timeout 190 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch \
  --shapes 3000:10504,5344:696,12216:14872,2424:15296,8544:4384,9208:4376,392:5448,8024:9648,840:14504,5712:11200,2728:3056,1480:9712,1352:11752,5720:5592,11144:11552,6336:8672,7008:4184,7496:11584,8960:5256,7232:2360 \
  --ms 1,16,64,160,320,640,1536,4096 --json $R/survey.json > $R/survey.txt 2>&1
tail -3 $R/survey.txt | cut -c1-200
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
