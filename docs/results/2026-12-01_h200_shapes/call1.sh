#!/bin/bash
# call 1 (2026-12-01, fourth session, one H200): mode none at shapes other than N = 7168 (no
# tuning table: the built-in dispatch rules), against torch.mm, graph-timed, warm weights.
# Part A: the op's own dispatch at 14 (N, K) of common models' row-parallel layers.
# Part B: the full candidate sweep at 5 of them, decode sizes (how far the default is from the
# best kernel we have).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
MS=1,16,64,128,256,384,512,1024,4096
left() { [ $(( $(date +%s)-T0 )) -lt $1 ]; }
for NK in 4096:512 4096:1792 4096:2048 4096:7168 4096:14336 8192:1024 8192:3584 8192:4096 \
          8192:14336 5120:3456 5120:1280 3584:2368 2048:5632 16384:6656; do
  N=${NK%:*}; K=${NK#*:}
  left 330 || break
  timeout 40 python3 tools/bench_decode.py --dispatch-only --n $N --ks $K --ms $MS \
      --json $R/d_${N}_${K}.json > $R/d_${N}_${K}.txt 2>&1
  echo "A N=$N K=$K rc=$? t=$(( $(date +%s)-T0 ))s"
done
for NK in 4096:2048 4096:7168 8192:1024 8192:3584 2048:5632; do
  N=${NK%:*}; K=${NK#*:}
  left 500 || break
  timeout 60 python3 tools/bench_decode.py --n $N --ks $K --ms 16,64,128,256,384,512 \
      --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "B N=$N K=$K rc=$? t=$(( $(date +%s)-T0 ))s"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
cd $OUT && tar czf r.tgz r && rm -rf r
