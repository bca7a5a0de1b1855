#!/bin/bash
# Nineteenth session, call 3 (one H200): every GPU test + fuzz with the swapabx kernels and the
# swapabx rule (dispatch.choose_swapabx); that rule held out against the dispatch without it
# (`noswapabx`) at 12 random shapes with K % 64 != 0 (seed 1919: N 6144..15936, K 2056..15856)
# x M 54 / 106 / 151 / 180; and swapabx at M 16 / 32 (below the rule's bound, not taken there).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,noswapabx \
  --shapes $2 --ms 54,106,151,180 --json $R/$3.json > $R/$3.txt 2>&1; echo "$3 rc=$? $(grep -c '^N=' $R/$3.txt) points"; }
run 120 9600:2096,10752:2056,12096:3472,15936:10768,8512:8632,14336:10568 h1
run 120 6144:4136,10240:3640,8896:12384,7936:6824,8000:4888,14656:15856 h2
timeout 80 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes \
  --rules dispatch,swapab32c1,swapabx32c2,swapabx32c4 --shapes 7168:2360,4096:4104,8192:3696,6144:4136 \
  --ms 16,32 --json $R/small.json > $R/small.txt 2>&1; echo "small rc=$? $(grep -c '^N=' $R/small.txt) points"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
