#!/bin/bash
# call 2 (2026-12-01, eighth session, one H200): K no multiple of 64 (contract.K_MULTIPLE = 8;
# the kernels loop over ceil(K / 64) k-tiles, the last one zero-filled past K by TMA): the new
# GPU tests (tests/gpu/test_ragged_k.py), then mode none as dispatched at ragged K next to the
# multiples of 64 around it (Qwen2.5-72B down_proj at TP 8 / 4: N 8192, K 3696 / 7392; N 4096 K
# 1000; N 2048 K 4104), warm and cold weights, 3 rounds: a partial k-tile should cost what a
# whole one does (K 3696 ~ K 3712).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 300 python3 -m pytest -q -m gpu tests/gpu/test_ragged_k.py > $R/t_ragged.log 2>&1
echo "ragged K tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_ragged.log)"
grep -E "^E |FAILED" $R/t_ragged.log | head -12
for NK in 8192:3696 8192:3712 8192:3648 8192:7392 8192:7424 4096:1000 4096:1024 2048:4104 2048:4096; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 500 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,64,128,256,512,2048 \
    --rules dispatch --both-regimes --rounds 3 --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
