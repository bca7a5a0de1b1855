#!/bin/bash
# call 1 (eleventh session, one H200): every tuning candidate (tuning.candidates: tile, swapab,
# splitk) at the model points where mode none stays below ~0.9x torch.mm after the tenth
# session (M 128..512 at N 5120 / 2880 / 8192 / 16384, and M 32..64 at N 4096), warm and cold.
# Question: does any kernel we already build reach 0.9x there (a dispatch change), or is the
# kernel itself the limit (kernel work)?
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
run() {  # name shapes ms
  timeout 170 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules dispatch,cands --both-regimes --rounds 3 --json $R/$1.json 2>&1 | tail -3 | cut -c1-200
  echo "$1 $(( $(date +%s)-T0 ))s"
}
run c2880 2880:2048,2880:512 128,256
run c5120s 5120:2560 128,256,512
run c5120l 5120:6912 256,512
run c5120xl 5120:13824 256,512
run c8192 8192:3696,16384:2048 128,256
run c4096 4096:3584,4096:2048 32,64
cd $OUT && tar czf r.tgz r && rm -rf r
