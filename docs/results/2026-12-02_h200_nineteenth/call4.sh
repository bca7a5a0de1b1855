#!/bin/bash
# Nineteenth session, call 4 (one H200): the swapabx rule as committed (one wave of clusters;
# call 3 refuted the version that allowed more rounds) held out against the dispatch without
# it (`noswapabx`) at 12 fresh random shapes where it can act (seed 1920: N 4096..8448 a
# multiple of 64, K % 64 != 0) x one random M in each quarter of 33..192 (seed 1920); and the
# row layouts (contiguous / padded rows) with the dispatch at N 7168 K 2360.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,noswapabx \
  --shapes $2 --ms $MS --json $R/$3.json > $R/$3.txt 2>&1; echo "$3 rc=$? $(grep -c '^N=' $R/$3.txt) points"; }
MS=$(python3 -c "import random; rng=random.Random(1920); print(','.join(str(rng.randint(a, a + 39)) for a in (33, 73, 113, 153)))")
echo "ms $MS"
run 130 8128:15416,6016:6568,6528:6904,8192:9592,5632:13560,7232:2856 g1
run 130 5440:1928,4416:11552,7296:10744,6080:10784,7232:9432,6656:7584 g2
timeout 60 python3 tools/probes/row_layout.py --shapes 7168:2360,4096:4104 --ms 32,64,128,160 \
  --json $R/layout.json > $R/layout.txt 2>&1; echo "layout rc=$?"
cd $OUT && tar czf r.tgz r && rm -rf r
