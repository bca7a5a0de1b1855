#!/bin/bash
# call 2 (2026-12-01, seventh session, one H200): mode-none splitk kernels that spread their
# (W tile, token tile) pairs over the clusters (contract.splitk_spread): the splitk GPU tests
# (token tiles 16..192 at M up to 511, budgets below a cluster), then the dispatch (no splitk
# past M 192) against splitk at token tiles 64..192, clusters of 2 and 4, at the small-N shapes
# where call 1 found the dispatch at 0.60x-0.86x torch.mm (M 176..512) and a few more small-N
# shapes, warm and cold weights, 3 rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py > $R/t_splitk.log 2>&1
echo "splitk tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_splitk.log)"
grep -E "^E |FAILED" $R/t_splitk.log | head -8
RULES=dispatch,splitk64c2,splitk64c4,splitk128c2,splitk128c4,splitk160c4,splitk192c2,splitk192c4
for NK in 1152:12352 1408:7040 3328:9536 1024:14336 2048:8192 2560:6144 3072:4096 1536:3072; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 500 ] || break
  timeout 100 python3 tools/probes/choice_ab.py --shapes $NK --ms 176,256,336,448,512 \
    --rules $RULES --both-regimes --rounds 3 --json $R/k_${N}_${K}.json > $R/k_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
