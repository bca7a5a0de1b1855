#!/bin/bash
# Twentieth session, call 3 (no GPU tests: call 2 ran them on this dispatch): (a) a survey of mode
# none's dispatch against torch.mm where rows ARE 128-byte lines (16 random shapes, seed
# 20261230, N 256..16384 multiples of 8, K 512..16384 multiples of 64) x M 1..4096; (b) every
# candidate at 16 more random shapes with K % 64 != 0 (same seed) x 2 M each: a larger fit set
# for the L2-traffic model.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 150 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch \
  --shapes 12280:3648,9536:14464,9408:14208,11624:4544,11400:3200,14744:13248,11888:8000,9256:14016,3432:9408,1992:4160,5712:13376,9368:14080,12968:10304,7744:6272,12320:11136,4568:5888 \
  --ms 1,16,64,160,320,640,1536,4096 --json $R/aligned.json > $R/aligned.txt 2>&1
tail -2 $R/aligned.txt | cut -c1-200
timeout 150 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,cands \
  --shapes 15552:12216,7296:11232,4952:11512,7920:12600,15232:7520,5928:6384,14360:14496,3760:952 \
  --ms 45,230 --json $R/c1.json > $R/c1.txt 2>&1
tail -2 $R/c1.txt | cut -c1-200
timeout 150 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,cands \
  --shapes 880:2200,6112:7184,5152:15696,6568:2224,8656:5144,1944:6376,10008:1848,8960:16328 \
  --ms 120,380 --json $R/c2.json > $R/c2.txt 2>&1
tail -2 $R/c2.txt | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
