#!/bin/bash
# call 1 (2026-12-01, eighth session, one H200): mode none as dispatched (`dispatch`: the op's
# rule; no table at these shapes) against torch.mm at the row-parallel shapes of four public
# model sizes (N = hidden; K = hidden / tp (o_proj) and intermediate / tp (down_proj), tp 2 and
# 8): Llama-3 8B (4096 / 14336), Llama-3 70B (8192 / 28672), Qwen2.5 7B (3584 / 18944), Qwen2.5
# 32B (5120 / 27648); M 1..512, warm and cold weights, 3 rounds. Where real models lose.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for NK in 4096:2048 8192:14336 3584:448 5120:3456 4096:7168 8192:1024 3584:2368 5120:2560 \
          4096:512 8192:4096 3584:9472 5120:640 4096:1792 8192:3584 3584:1792 5120:13824; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 540 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,64,128,192,256,384,512 \
    --rules dispatch --both-regimes --rounds 3 --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
