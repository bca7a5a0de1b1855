#!/bin/bash
# Eighteenth session, call 4 (one H200): (1) every GPU test + 20 s fuzz with the tile
# schedule's cta_group chosen with its width (dispatch.choose_tile, TILE_CG1_PRICE 1.2, fitted
# on calls 2-3); (2) that rule held out against the one before (`tilecg2`) at 16 random shapes
# (seed 1818) x M 580, 714, 813, 1088, 1346, 1585 (odd 128-row tile counts but 714), worse of
# warm and cold; (3) why the decode kernels ran 0.63x-0.74x torch.mm at M 160 in call 2 where
# the sixth session measured ~1.0x at N 7168 K 2304: N 7168 / 7232 / 7008 x K 2304 / 2368 /
# 2360 / 2312 at M 160 (rows 128-byte aligned or not, N a multiple of 128 / 64 / neither).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 70 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes \
  --rules dispatch,swapab80c2,swapab80c3,swapab160c1,tile128c2 \
  --shapes 7168:2304,7168:2368,7168:2360,7168:2312,7232:2304,7232:2360,7008:2304,7008:2360 \
  --ms 160 --json $R/align.json > $R/align.txt 2>&1; echo "align rc=$?"
timeout 170 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,tilecg2 \
  --shapes $2 --ms 580,714,813,1088,1346,1585 --json $R/$3.json > $R/$3.txt 2>&1; echo "$3 rc=$? $(grep -c '^N=' $R/$3.txt) points"; }
run 120 3720:13768,6632:9440,9912:4344,3544:13760,4656:3544,13712:9496,10248:16280,2632:15080 h1
run 120 6872:7328,14208:15312,11872:8944,6408:7744,8248:6488,1552:9592,14168:1944,4112:11280 h2
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
