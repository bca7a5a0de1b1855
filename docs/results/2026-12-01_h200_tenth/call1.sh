#!/bin/bash
# call 1 (2026-12-01, tenth session, one H200): HEAD e749cf3 (never on the GPU) through every GPU
# test and 60 s of fuzz; then mode none at the dispatch against torch.mm at the row-parallel
# layers of public models (N = hidden size, K = the per-rank input: o_proj / down_proj at TP 2/4/8),
# M 1..512, warm and cold weights: the general-case survey of real serving shapes.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/dc.txt
# Llama-3 8B / Mistral 7B (4096; 4096, 14336), Llama-3 70B (8192; 8192, 28672), Qwen2.5-72B
# (8192; 29568), Qwen2.5-32B (5120; 5120, 27648), Llama-3.1 405B (16384; 16384, 53248),
# gpt-oss (2880; 4096)
S1=4096:2048,4096:7168,4096:1024,4096:3584,4096:512,4096:1792
S2=8192:4096,8192:14336,8192:2048,8192:7168,8192:1024,8192:3584,8192:3696
S3=5120:2560,5120:13824,5120:1280,5120:6912,5120:640,5120:3456
S4=16384:2048,16384:6656,2880:2048,2880:1024,2880:512
i=0
for S in $S1 $S2 $S3 $S4; do
  i=$((i+1))
  timeout 120 python3 tools/probes/choice_ab.py --shapes $S --ms 1,16,32,64,128,256,512 \
    --rules dispatch --both-regimes --rounds 3 --json $R/models$i.json 2>&1 | tail -3 | cut -c1-160
  echo "models$i $(( $(date +%s)-T0 ))s"
done
gzip -9 $R/dc/*.log 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
