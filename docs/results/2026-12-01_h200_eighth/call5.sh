#!/bin/bash
# call 5 (2026-12-01, eighth session, one H200): should clusters of 2 split K below K = 2816?
# (call 4: N 3584 K 2368, splitk16c2 0.93x torch.mm against the dispatch's 0.72x at M = 1, 0.84x
# against 0.75x at M = 64; dispatch.SPLITK_MIN_K_TILES = 44 was fitted in the fifth session.)
# Fit grid: N 2048/2560/3072/3584 x K 1536/2048/2368/2752; held out: 8 random shapes (seed
# 20261210, N 1792..3584, K 1408..2816), both at M 1 / 16 / 64: the dispatch (splitk only at
# K >= 2816) against splitk-c2 at M's token tile; warm and cold weights, 3 rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for NK in 2048:1536 2048:2048 2048:2368 2048:2752 2560:1536 2560:2048 2560:2368 2560:2752 \
          3072:1536 3072:2048 3072:2368 3072:2752 3584:1536 3584:2048 3584:2368 3584:2752; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 300 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,64 --rules dispatch,splitk-c2 \
    --both-regimes --rounds 3 --json $R/f_${N}_${K}.json > $R/f_${N}_${K}.txt 2>&1
  echo "fit N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
for NK in 3456:2496 2304:2368 2688:1856 3072:1664 2560:1984 2304:1600 3328:2112 2816:2816; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 480 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,64 --rules dispatch,splitk-c2 \
    --both-regimes --rounds 3 --json $R/h_${N}_${K}.json > $R/h_${N}_${K}.txt 2>&1
  echo "held-out N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
