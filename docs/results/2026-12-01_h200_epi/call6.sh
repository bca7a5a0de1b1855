#!/bin/bash
# call 6 (2026-12-01, sixth session, one H200): splitk token tiles 160 / 192 (mode none, sm_90a).
# At small N with long K and M 129..192 every kernel we have loops over K twice or leaves SMs
# idle (N 1024 K 14336 M 160: 0.35x torch.mm, splitk over two tiles of 128: 0.46x). First the
# splitk GPU tests (every token tile and cluster size), then the dispatch (no splitk above M 128)
# against splitk at 160 / 192 (and 128, two passes) with clusters of 2 and 4, 3 rounds, warm and
# cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py > $R/t_splitk.log 2>&1
echo "splitk tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_splitk.log)"
grep -E "^E |FAILED" $R/t_splitk.log | head -8
for NK in 1024:14336 1280:8192 1536:4096 2048:8192 2048:5632 3072:8192 1024:4096 2560:4096 1792:4096; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 300 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 144,160,192,224,256 \
    --rules dispatch,splitk128c4,splitk160c4,splitk192c4,splitk160c2,splitk192c2 \
    --both-regimes --rounds 3 --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/s_*.txt | grep "N=" | cut -c1-230
cd $OUT && tar czf r.tgz r && rm -rf r
