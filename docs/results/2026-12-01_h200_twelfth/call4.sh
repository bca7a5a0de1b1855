#!/bin/bash
# call 4 (twelfth session, one H200): data for two dispatch questions, every candidate timed
# (`--rules dispatch,cands`), nothing changed yet. Carry cache_gpu + cache_rag, as calls 1-3.
# (a) small N, long K (call 1 saw N 704 K 8192 M 256: dispatch splitk128c2 0.70x torch.mm,
#     splitk128c4 1.00x; M 128: splitk128c4 0.81x, splitk64c4 0.91x): does splitting the tokens
#     over more clusters of 4 (more CTAs at few W tiles) pay in general? N 704..2048 x K 4096 /
#     8192 x M 128..384.
# (b) M 416..512 where the fill rule takes the wide kernel (cta_group 2) at token tile 96+ while
#     cta_group 3 fits one wave (call 1-2: at N 2880 / 3008 cta_group 3 token tile 64 beat the
#     picked 112c2 by 3%-8%, at N 3008 K 7904 the other way): 14 random such points (seed 7).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
ab() {  # name shapes ms rules
  timeout 200 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-200
}
ab smalln1 704:4096,704:8192,1088:4096,1088:8192 128,192,256,384 dispatch,cands
ab smalln2 1536:4096,1536:8192,2048:4096,2048:8192 128,192,256,384 dispatch,cands
echo "a $(( $(date +%s)-T0 ))s"
i=0
for P in 4160:4256@448 3264:1728@416 5056:1592@512 3456:5536@416 4992:7792@416 3328:5584@416 \
         4032:1864@448 4096:5816@512 5248:3472@480 3520:6744@448 3520:5728@416 3968:8192@512 \
         4928:6496@416 5248:7904@416 3008:7904@511 2880:7904@512; do
  i=$((i+1)); ab wide$i ${P%@*} ${P#*@} dispatch,cands
done
echo "b $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
