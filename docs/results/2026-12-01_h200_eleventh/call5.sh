#!/bin/bash
# NOT RUN: no device was lent after call 4 this session. A plan for the next one: apply
# wide_ragged_prototype.patch (beside this script: the render flag, decode_fits_n admitting
# cta_group 2 at any N -- mode-blind, so only for mode-none probes -- and a GPU test), build
# cache_rag with `codegen build --tp 2 --arch sm_90a --mode none --schedule swapab --cta-group 2
# --cache-dir cache_rag` (stripped: tools/ab_cubins.strip_to_cubins), carry cache_gpu and cache_rag.
# call 5 (eleventh session, one H200): prototype -- mode none's wide decode kernel (cta_group 2,
# 128-row W tiles) with its last W tile past N (as cta_group 3's: rows past N load as zeros, the
# stores stop at N), so N = 64 mod 128 (gpt-oss 2880) gets 128-row W tiles: N 2880 M 256 would
# run ceil(2880 / 128) x 4 token tiles of 64 = 92 CTAs streaming 192 rows per k-step, where the
# best today is cta_group 3 at 60 CTAs x 256 rows (0.80x torch.mm). Prediction ~0.95x-1.05x.
# cache_rag: the 13 rebuilt mode-none cta_group 2 kernels (SASS: +1..3 branches, same waits and
# registers); merged over cache_gpu into cache_all here.
# (A) no regression where N % 128 == 0: the cta_group 2 kernels old (cache_gpu) against new
#     (cache_all), tools/ab_time.py A B B A; (B) the ragged N against every candidate;
# (C) the GPU test of the ragged wide kernel and test_ragged_n / test_gemm_none.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
python3 tools/ab_time.py --side old=cache_gpu --side new=cache_all --out $R/ab --reps 2 --timeout 150 -- \
  python3 tools/probes/choice_ab.py --shapes 4096:2048,16384:2048 --ms 128,448 \
  --rules swapab64c2,swapab128c2,swapab224c2 --both-regimes --rounds 3 --json {json}
echo "A $(( $(date +%s)-T0 ))s"
export CODEGEN_CACHE_DIR=cache_all
ab() {  # name shapes ms rules
  timeout 150 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-220
}
ab rag2880 2880:2048,2880:1024,2880:512 128,192,256,384,512 dispatch,cands
ab ragoth 1088:4096,3136:2048 128,256,512 dispatch,cands
echo "B $(( $(date +%s)-T0 ))s"
python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py tests/gpu/test_gemm_none.py 2>&1 | tail -3
echo "C $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
