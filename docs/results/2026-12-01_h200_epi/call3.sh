#!/bin/bash
# call 3 (2026-12-01, sixth session, one H200): prototype of a decode kernel with a 192-row W
# tile (cta_group 3: three MMA warpgroups, mode none; the branch `w192`, carried as
# cache_w3/src with its mode-none cubins in cache_w3). Why: at the compute-bound decode points
# where every kernel we have is below torch.mm, ncu (call 2) shows the tensor pipe ~95% busy in
# ours and cuBLAS's alike; cuBLAS runs fewer MMA cycles by filling the 132 SMs in one wave with a
# 192-row W tile (N 5888 M 425: 192 x 112, 124 CTAs; N 12544 M 382: 192 x 192, 132 CTAs).
# First the mode-none GPU tests of every token tile (cta_group 3 at a ragged N: 1280 / 192),
# then every candidate (cta_group 3 among them) at those points, 3 rounds, warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
ROOT=$(pwd)
export CODEGEN_CACHE_DIR=$ROOT/cache_w3
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
cd cache_w3/src
PYTHONPATH=. timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_swapab.py -k none_every_token_tile \
  > $R/t_none_tiles.log 2>&1
echo "token tile tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_none_tiles.log)"
grep -E "^E |FAILED" $R/t_none_tiles.log | head -8
for SPEC in 5888:13312/425 12544:8192/382 12032:11264/364 15104:7232/322 6144:2368/422 \
            10752:9536/496 9984:7680/249 9344:3328/232 11008:9984/195 7168:768/512 \
            7168:2304/384,512 4096:4096/256 16384:6656/224; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 520 ] || break
  PYTHONPATH=. timeout 70 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS \
    --rules dispatch,cands --both-regimes --rounds 3 --json $R/w_${N}_${K}.json > $R/w_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/w_*.txt | grep "N=" | cut -c1-220
cd $OUT && tar czf r.tgz r && rm -rf r
