#!/bin/bash
# call 1 (2026-12-01, seventh session, one H200): the splitk GPU tests (the test updated at the
# end of the sixth session, never run on a GPU), then a survey of mode none as dispatched
# (`dispatch`: the op's rule, no table at these shapes) against torch.mm at 14 random shapes
# (seed 20261205; N 1024..16384, K 512..14336), 10 M each from 1 to 512, warm and cold weights,
# 3 rounds: where the general case still loses.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_splitk.py > $R/t_splitk.log 2>&1
echo "splitk tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_splitk.log)"
grep -E "^E |FAILED" $R/t_splitk.log | head -8
for NK in 1152:12352 7680:10688 1280:768 11392:13952 7424:7744 16000:9792 3968:2240 \
          9600:13952 10112:11200 12160:1728 16128:10752 12160:4736 3328:9536 1408:7040; do
  N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 520 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms 1,16,48,96,128,176,256,336,448,512 \
    --rules dispatch --both-regimes --rounds 3 --json $R/s_${N}_${K}.json > $R/s_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
