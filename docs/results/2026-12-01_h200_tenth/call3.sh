#!/bin/bash
# call 3 (tenth session, one H200): the k-tile count written cute.ceil_div(K, BK) instead of
# (K + BK - 1) // BK (cache_fix, built from the working tree with that change) against HEAD e749cf3
# (cache_new: its mode-none kernels, tools/ab_cubins.py HEAD --cubins-only). On the CPU the change gives the mode-none kernels back the SASS structure they
# had before the ragged-K commit 362aebd (swapab bn16 cg1: 2103 SASS lines, 68 SYNCS.PHASECHK,
# 118 BRA, as at 38c3683; HEAD: 1943 / 46 / 74), and the fifth session timed those decode kernels
# ~1 us faster than calls 1-2 did. A/B in alternation (tools/ab_time.py), then every GPU test
# and 60 s of fuzz on cache_fix.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
python3 tools/ab_time.py --side new=cache_new --side fix=cache_fix --out $R/decode --reps 2 \
  --timeout 120 -- python3 tools/probes/choice_ab.py \
  --shapes 4096:2048,5120:2560,7168:2304,8192:3584,7168:768,2880:1024 --ms 1,16,64,128,256,512 \
  --rules dispatch --both-regimes --rounds 3 --json {json}
echo "decode $(( $(date +%s)-T0 ))s"
python3 tools/ab_time.py --side new=cache_new --side fix=cache_fix --out $R/large --reps 2 \
  --timeout 120 -- python3 tools/probes/choice_ab.py --shapes 7168:2304,8192:3584,4096:7168 \
  --ms 1024,2048,8192 --rules dispatch --rounds 3 --json {json}
echo "large $(( $(date +%s)-T0 ))s"
CODEGEN_CACHE_DIR=cache_fix bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/dc.txt
gzip -9 $R/dc/*.log 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
