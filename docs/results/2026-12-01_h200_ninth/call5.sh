#!/bin/bash
# call 5 (2026-12-01, ninth session, one H200): (a) the splitk bound lowered to 25 k-tiles
# (clusters of 2 from K 1544), held out: 8 random shapes (seed 20261211: N 1024..3584, K
# 1544..1984, 3 of M 1..64 each) where it moves the pick, the new dispatch against the old
# pick (`rules`: the decode kernel, cta_group 1, M's token tile), warm and cold, 3 rounds;
# (b) every GPU test and 90 s of fuzz on the final code.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 2944:1616/4,8,48 2624:1864/4,33,48 1856:1760/4,16,64 2368:1912/8,16,64 1600:1872/4,8,48 2432:1952/1,8,24 2048:1928/4,24,33 1600:1648/8,16,64; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,rules \
    --both-regimes --rounds 3 --json $R/h_${N}_${K}.json > $R/h_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"; cut -c1-140 $R/h_${N}_${K}.txt
done
bash tools/device_check.sh --fuzz-s 90 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/dc.txt
gzip -9 $R/dc/*.log 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
