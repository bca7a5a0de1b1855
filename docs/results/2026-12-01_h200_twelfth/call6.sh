#!/bin/bash
# call 6 (twelfth session, one H200; the session's last device minutes): rs/ar's wide decode
# kernel (cta_group 2) past N too (templates/decode_exchange.py.j2: landing stores and the
# reduction stop at N). Carry cache_gpu, cache_rag (mode none cg2) and cache_rag2 (the 36 rs/ar
# cg2 swapab kernels of TP 2/4/8, rebuilt: `codegen build --tp 2,4,8 --arch sm_90a --transport
# unicast --mode rs,ar --schedule swapab --cta-group 2`, stripped).
# (a) tests/gpu/test_ragged_n.py (the new test_fused_wide_kernel_past_n: TP 2 / 8, rs / ar,
#     token tiles 16..256, N 2880 / 704 / 2944, issue 9's M list up and down, graph replay);
# (b) virtual ranks TP 2 at N 2880 K 2048: the default (now the fill rule may take the wide
#     kernel past N) against cta_group 1 (the old default: one 64-row W tile per CTA, 45 CTAs).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/ && cp -r cache_rag2/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag2/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py > $R/t_ragged.log 2>&1
echo "tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_ragged.log)"
grep -E "^E |FAILED" $R/t_ragged.log | head -8
timeout 110 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 --shapes 2880:2048 \
  --ms 64,128,256,512 --choices default,swapab64c1,swapab128c1,swapab256c1 --rounds 3 \
  --json $R/fused_ab.json > $R/fused_ab.txt 2>&1
echo "fused A/B rc=$? $(( $(date +%s)-T0 ))s"
cut -c1-240 $R/fused_ab.txt | tail -12
cd $OUT && gzip -9 -f r/t_ragged.log; tar czf r.tgz r && rm -rf r
