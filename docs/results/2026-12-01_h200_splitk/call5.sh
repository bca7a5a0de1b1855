#!/bin/bash
# call 5 (2026-12-01, fifth session, one H200): the points where the committed dispatch stayed
# below 0.9x torch.mm in the fourth session's survey (call 8 there), and N 1024 K 14336 past one
# token tile: the dispatch against every sweep candidate (splitk included), 3 interleaved
# rounds, warm and cold weights (the worse ratio).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 7168:3584/224,256,288,352 16384:6656/192,224,256 5120:1280/96,128,160,1024 \
            4096:14336/144,160,176 4096:2048/32,160 4096:1792/32 3584:2368/160,480 \
            5120:3456/1024 1024:14336/160,192,256; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 480 ] || break
  timeout 90 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,cands \
    --both-regimes --rounds 3 --json $R/c_${N}_${K}.json > $R/c_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/c_*.txt | grep "N=" | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
