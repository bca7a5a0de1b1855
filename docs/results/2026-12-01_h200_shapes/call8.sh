#!/bin/bash
# call 8 (2026-12-01, fourth session, one H200): the committed dispatch (wave-fill rule with the
# token tiles 80/96/112; the N 7168 tables of the third session) at the shapes of call 1 and N
# 7168 K 3584 (no table), M 1..2048 (mode-none kernels only: cache_none, for the carry limit), against torch.mm: choice_ab.py --rules dispatch, 3
# interleaved rounds, warm and cold weights (the score is the worse of the two ratios).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_CACHE_DIR=cache_none
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
MS=1,16,32,64,96,128,160,192,224,256,288,320,352,384,416,448,480,512,1024,2048
for NK in 4096:512 4096:1792 4096:2048 4096:7168 4096:14336 8192:1024 8192:3584 8192:4096 \
          8192:14336 5120:3456 5120:1280 3584:2368 2048:5632 16384:6656 7168:3584; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 520 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch \
    --both-regimes --rounds 3 --json $R/d_${N}_${K}.json > $R/d_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
