#!/bin/bash
# call 3 (twelfth session, one H200): a fresh held-out check of the fill rule with the ragged
# wide kernel bounded to one wave (dispatch.ragged_wide_past_one_wave, drawn after call 2's 16
# points): 16 new random (N = 64 mod 128, K, M <= 512) (seed 20261202) where the pick moves
# against the rule before the ragged kernel: dispatch against fillk-noragged. Then the ragged /
# mode-none GPU tests on this runtime. Carry cache_gpu + cache_rag, as calls 1-2.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
ab() {  # name shapes ms rules
  timeout 150 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-200
}
i=0
for P in 3392:5504@175 2752:7904@275 4544:4984@136 3136:1120@303 6720:4592@227 4288:4128@362 \
         2496:3648@295 14528:1616@208 8384:1936@194 3904:2792@418 8384:4384@499 3904:4016@184 \
         14656:6376@157 5056:4024@197 8128:2784@412 5184:4336@418; do
  i=$((i+1)); ab held$i ${P%@*} ${P#*@} dispatch,fillk-noragged
done
echo "held-out $(( $(date +%s)-T0 ))s"
python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py tests/gpu/test_gemm_none.py tests/gpu/test_splitk.py 2>&1 | tail -3
echo "tests $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
