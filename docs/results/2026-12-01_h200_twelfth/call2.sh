#!/bin/bash
# call 2 (twelfth session, one H200). Carry cache_gpu (HEAD a16a2a6's kernels) and cache_rag
# (the 13 mode-none cta_group 2 kernels reaching past N), as call 1.
# (A) no regression where N % 128 == 0: call 1's A/B could not run, since this runtime refuses
#     a mode-none wide entry without launch "ragged_n" (kernel.contract_mismatch: such a kernel
#     would leave N's last 64 columns unwritten at N = 64 mod 128). cache_old = cache_gpu with
#     that key set in the 13 cg2 entries' meta.json, for this timing only (N % 128 == 0 here,
#     where the old kernels are right); old against new, tools/ab_time.py A B B A.
# (B) held out: 16 random (N = 64 mod 128, K, M <= 512) (seed 20261201) where the fill rule's
#     pick moves with the ragged wide kernel: dispatch against fillk-noragged (the rule before).
# (C) M 448..512, where call 1 saw the rule take the ragged cg2 token tile 112 (0.88x-0.94x)
#     over cta_group 3 token tile 64 (0.95x-0.97x) at N 2880: every candidate at 6 N x 2 K.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all cache_old && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/ && cp -r cache_gpu cache_old
python3 - <<'PY'
import glob, json
n = 0
for f in glob.glob("cache_old/sm_90a/gemm_none_sm90a_swapab_bn*_cg2_bf16/*/meta.json"):
    d = json.load(open(f)); d["launch"]["ragged_n"] = True; json.dump(d, open(f, "w")); n += 1
print("patched", n)
PY
python3 tools/ab_time.py --side old=cache_old --side new=cache_all --out $R/ab --reps 2 --timeout 150 -- \
  python3 tools/probes/choice_ab.py --shapes 4096:2048,7168:2304,16384:2048 --ms 128,448 \
  --rules swapab32c2,swapab64c2,swapab112c2,swapab128c2,swapab224c2 --both-regimes --rounds 3 \
  --json {json} > $R/ab.txt 2>&1
tail -4 $R/ab.txt
echo "A $(( $(date +%s)-T0 ))s"
export CODEGEN_CACHE_DIR=cache_all
ab() {  # name shapes ms rules
  timeout 150 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-200
}
i=0
for P in 3008:7904@511 4672:1728@135 15296:8120@59 4416:1656@181 16320:7768@35 14144:4232@446 \
         3520:5624@354 2240:3000@416 3392:7552@291 10560:5072@506 11200:3208@322 9664:7400@447 \
         10176:5312@70 9024:3496@297 7872:736@385 16320:7584@109; do
  i=$((i+1)); ab held$i ${P%@*} ${P#*@} dispatch,fillk-noragged
done
echo "B $(( $(date +%s)-T0 ))s"
ab m512a 2880:1024,3008:4096,4416:1024 448,512 dispatch,cands
ab m512b 5184:4096,2944:1024,4480:4096 448,512 dispatch,cands
echo "C $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
