#!/bin/bash
# Twentieth session, call 4: call 3's aligned survey found M 640 weak (12 of 16 below 0.9x
# torch.mm, the tile schedule's cta_group 2). Every candidate (the tile schedule at each width x
# cta_group, splitkw) at 16 random shapes with rows on the 128-byte lines (seed 20261231, N
# 512..16384, K 1024..16384 multiples of 64) x M 576 / 640 / 704 / 896: is it the kernel or the
# pick?
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 150 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,cands \
  --shapes 13608:5376,4928:12800,16056:15104,11392:1152,7856:5248,12304:1984,10016:6016,3640:15040 \
  --ms 576,640,704,896 --json $R/a1.json > $R/a1.txt 2>&1
tail -2 $R/a1.txt | cut -c1-200
timeout 150 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,cands \
  --shapes 12968:3136,2552:1216,4776:6912,9000:16000,8792:10560,4504:16192,13848:6208,9064:2944 \
  --ms 576,640,704,896 --json $R/a2.json > $R/a2.txt 2>&1
tail -2 $R/a2.txt | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
