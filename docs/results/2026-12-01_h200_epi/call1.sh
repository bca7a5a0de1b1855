#!/bin/bash
# call 1 (2026-12-01, sixth session, one H200): the wide decode kernel's epilogue in passes
# (contract.decode_epi_tokens: token tiles 192 / 208 / 224 / 256 get 5 / 4 / 4 / 4 pipeline
# stages, were 4 / 3 / 3 / 3). First the decode GPU tests (every mode-none token tile, the rs/ar
# wide kernels of token tile 256 that now store in passes), then old (38f0d1f, cache_old) against
# new (cache_gpu) at fixed choices, alternating A B B A, then every candidate with the new kernels
# at the shapes where the big token tiles are candidates (for the wave-fill prices).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_swapab.py tests/gpu/test_gemm_none.py \
  > $R/t_decode.log 2>&1
echo "decode tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_decode.log)"
grep -E "^E |FAILED" $R/t_decode.log | head -8
python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/ab --reps 2 \
  --timeout 110 -- python3 tools/probes/choice_ab.py \
  --shapes 7168:768,7168:2304,5888:13312,12032:11264,9344:3328,6016:3456 --ms 232,400,512 \
  --rules swapab192c2,swapab208c2,swapab224c2,swapab256c2 --both-regimes --rounds 3 \
  --json {json}
echo "ab done $(( $(date +%s)-T0 ))s"
for SPEC in 7168:768/400,480,512 7168:1536/400,480,512 7168:2304/400,480,512 \
            5888:13312/425 12032:11264/364 12544:8192/382 9344:3328/232 9984:7680/249 \
            6016:3456/461 11008:9984/195 6144:2368/422 15104:7232/322 10752:9536/496; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 540 ] || break
  timeout 60 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,cands \
    --both-regimes --rounds 3 --json $R/g_${N}_${K}.json > $R/g_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cat $R/g_*.txt | grep "N=" | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
