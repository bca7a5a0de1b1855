#!/bin/bash
# call 4 (eleventh session, one H200): the committed tile widths 160 / 192 at the public-model
# shapes they touch (N 5120: Qwen2.5-32B / Llama-2-13B style; N 2880: gpt-oss), M 512..4096:
# `dispatch` against the rules without them (`fillk-bns` at M <= 512, `rules` above), warm and
# cold; then the GPU tests the last call's expectation fix touches (test_ragged_n) and the
# mode-none ones.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
ab() {  # name shapes ms rules
  timeout 150 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-200
}
ab m512 5120:640,5120:1280,5120:3456,5120:13824 512 dispatch,fillk-bns
ab m1k 5120:640,5120:1280,5120:2560,5120:3456,5120:6912 1024,2048,4096 dispatch,rules
ab m1kxl 5120:13824 1024,4096 dispatch,rules
ab g2880 2880:512,2880:1024,2880:2048 1024,2048,4096 dispatch
echo "ab $(( $(date +%s)-T0 ))s"
python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py tests/gpu/test_gemm_none.py 2>&1 | tail -3
echo "tests $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
