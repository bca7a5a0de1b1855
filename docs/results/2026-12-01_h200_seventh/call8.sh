#!/bin/bash
# call 8 (2026-12-01, seventh session, one H200): rs/ar where the default decode kernel leaves
# SMs idle, on two virtual ranks (66 SMs each): the old default (swapab128c1: 64-row W tiles,
# N / 64 CTAs looping over token tiles of 128) against the wide kernels (swapab32/64/128c2) and
# the new rule (`default`: dispatch.choose_fused_by_fill) at N 2048 / 2560 / 3072 (32 / 40 / 48
# CTAs of 66), K 2048..8192, M 128 / 256 / 512 (tools/probes/fused_choice_ab.py, 5 rounds; every
# output checked first); then every GPU test with the new rule.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 200 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 2048:4096,2048:8192,2560:2048,3072:4096 --ms 128,256,512 \
  --choices default,swapab128c1,swapab32c2,swapab64c2,swapab128c2 --rounds 5 \
  --json $R/fused_ab.json > $R/fused_ab.txt 2>&1
echo "fused A/B rc=$? $(( $(date +%s)-T0 ))s"
cut -c1-260 $R/fused_ab.txt | tail -30
timeout 200 python3 -m pytest -q -m gpu tests/gpu > $R/t_gpu.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_gpu.log)"
grep -E "^E |FAILED" $R/t_gpu.log | head -8
cd $OUT && gzip -9 -f r/t_gpu.log; tar czf r.tgz r && rm -rf r
