#!/bin/bash
# call 4 (2026-12-01, ninth session, one H200): (a) does stream-K win where few W tiles meet a
# long K (N 896..2048, K 4096..14336: small models' down_proj, where the splitk clusters leave
# SMs idle)? stream-K against the dispatch, warm and cold, 3 rounds. (b) the splitk K bound
# below K 2048 (the eighth session's held-out shapes at K 1600..1984 gained): splitk with
# clusters of 2 against the dispatch at N 2048..3584, K 1600..1984, M 1 / 16 / 64.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for NK in 896:4864 1024:14336 1536:8960 2048:8192 1024:4096 3072:8192; do
  N=${NK%:*}; K=${NK#*:}
  timeout 100 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,64,128 --rules dispatch,streamk \
    --both-regimes --rounds 3 --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"; cut -c1-150 $R/s_${N}_${K}.txt
done
for N in 2048 2560 3072 3584; do for K in 1600 1728 1856 1984; do
  [ $(( $(date +%s)-T0 )) -lt 420 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $N:$K --ms 1,16,64 --rules dispatch,splitk-c2 \
    --both-regimes --rounds 3 --json $R/k_${N}_${K}.json > $R/k_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$?"; cut -c1-130 $R/k_${N}_${K}.txt
done; done
cd $OUT && tar czf r.tgz r && rm -rf r
