#!/bin/bash
# call 4 (2026-12-01, sixth session, one H200): cta_group 3 (the 192-row W tile, mode none) in
# main: the decode GPU tests (every token tile of cta_group 3 at a ragged N; unusual shapes:
# N 128 / 3200 / 16384 / 7168, looping grids, the default token tile of a fixed cta_group 3),
# then the wave-fill rule with cta_group 3 (`fill`) against the rule without it (`fill-cg12`) at
# 18 random shapes where they pick differently (seed 20261203; N 3072..16384, K 768..14336,
# M 129..512; not the points cta_group 3 was seen at), 5 rounds, warm and cold; then 60 s of
# fuzz (which now draws cta_group 3).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_swapab.py tests/gpu/test_gemm_none.py \
  > $R/t_decode.log 2>&1
echo "decode tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_decode.log)"
grep -E "^E |FAILED" $R/t_decode.log | head -8
for SPEC in 11776:7680/354 12416:7936/214 7936:5568/424 10624:10752/150 11008:7616/185 \
            6656:10432/330 11136:14016/199 6656:7488/328 12032:2880/214 14208:6144/499 \
            6144:4096/499 12544:2432/224 8704:4736/499 11392:8640/150 12544:1664/387 \
            12672:10752/237 12032:13952/279 11520:5568/161; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 420 ] || break
  timeout 40 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules fill,fill-cg12 \
    --both-regimes --rounds 5 --json $R/h_${N}_${K}.json > $R/h_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/h_*.txt | grep "N=" | cut -c1-200
timeout 100 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 60 --seed 4242 > $R/fuzz.log 2>&1
echo "fuzz rc=$? $(( $(date +%s)-T0 ))s: $(tail -2 $R/fuzz.log | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
