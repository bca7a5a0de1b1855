#!/bin/bash
# call 1 (twelfth session, one H200): mode none's wide decode kernel (cta_group 2, 128-row W
# tiles) with its last W tile past N (contract.swapab_ragged_n: cta_group 2 in mode none), so
# N = 64 mod 128 (gpt-oss 2880) gets 128-row W tiles: N 2880 M 256 would run ceil(2880 / 128) x
# 4 token tiles of 64 = 92 CTAs streaming 192 rows per k-step, where the best before is cta_group
# 3 at 60 CTAs x 256 rows (0.80x torch.mm). Prediction ~0.95x-1.05x at N 2880 M 128..256.
# Build (CPU): cache_gpu = HEAD's kernels (codegen build --tp 2,4,8 --arch sm_90a --transport
# unicast); cache_rag = the 13 mode-none cta_group 2 kernels rendered ragged (--tp 2 --mode none
# --schedule swapab --cta-group 2); both stripped to cubins. Merged here into cache_all.
# (A) no regression where N % 128 == 0: the cta_group 2 kernels old (cache_gpu) against new
#     (cache_all), tools/ab_time.py A B B A;
# (B) the ragged N against every candidate (dispatch now weighs the ragged wide kernel);
# (C) every GPU test (device_check.sh: incl. the new ragged wide test, the eleventh session's
#     untested M 16 / 63 / 64 / 65 of the extra widths and its review mend) and 40 s of fuzz.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
python3 tools/ab_time.py --side old=cache_gpu --side new=cache_all --out $R/ab --reps 2 --timeout 150 -- \
  python3 tools/probes/choice_ab.py --shapes 4096:2048,16384:2048 --ms 128,448 \
  --rules swapab64c2,swapab128c2,swapab224c2 --both-regimes --rounds 3 --json {json} > $R/ab.txt 2>&1
tail -4 $R/ab.txt
echo "A $(( $(date +%s)-T0 ))s"
export CODEGEN_CACHE_DIR=cache_all
ab() {  # name shapes ms rules
  timeout 150 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-220
}
ab rag2880 2880:2048,2880:1024,2880:512 32,64,128,192,256,384,512 dispatch,cands
ab ragoth 1088:4096,3136:2048,704:8192 64,128,256,512 dispatch,cands
echo "B $(( $(date +%s)-T0 ))s"
bash tools/device_check.sh --fuzz-s 40 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
