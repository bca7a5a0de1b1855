#!/bin/bash
# call 7 (2026-12-01, fifth session, one H200): the general case. 20 random (N, K) (N a multiple
# of 128 in 1024..16384, K a multiple of 64 in 512..14336; seed 20261201) x one M in each of
# 1..64, 65..256, 257..512: the committed dispatch (no table: the wave-fill rule with splitk)
# against every sweep candidate (splitk included) and torch.mm, 3 interleaved rounds, warm and
# cold weights (the worse ratio). How far the rule is from the best kernel we have, and from
# torch.mm, at shapes nobody tuned.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
for SPEC in 3328:4544/20,124,355 3712:1600/11,123,328 6272:1088/59,109,306 5888:13312/22,202,425 10752:9536/33,166,496 11008:9984/14,195,443 9984:7680/4,249,393 6016:3456/55,73,461 11136:6080/23,143,507 2944:3008/49,226,422 12032:11264/51,111,364 9344:3328/35,232,463 15104:7232/30,204,322 9728:5120/60,76,372 6144:2368/11,200,422 9600:3648/43,91,424 12544:8192/15,178,382 5120:9088/58,119,487 4864:4608/14,110,361 2944:8448/3,233,357; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 450 ] || break
  timeout 80 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,cands \
    --both-regimes --rounds 3 --json $R/g_${N}_${K}.json > $R/g_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/g_*.txt | grep "N=" | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
