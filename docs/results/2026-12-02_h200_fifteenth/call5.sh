#!/bin/bash
# call 5 (fifteenth session, one H200): the final runtime. The wave-fill rule at an N no multiple
# of 64 (call 4) and splitkw at decode sizes there (dispatch.choose_ragged_splitkw: clusters of
# 4, K >= 64 k-tiles, M <= 256, pairs in one wave; fitted on N 1000 K 8192 in call 4). A: every
# GPU test + 30 s fuzz; B: that rule held out at 5 new ragged shapes x M 1..256: the op's
# dispatch, the rule without it (nosplitkw: the fill rule), splitkw c2 / c4 fixed (warm, 3 rounds).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 170 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/choice_ab.py \
  --shapes 1800:6000,600:14336,1320:4104,2440:5000,3000:8192 \
  --ms 1,16,64,200,256 --rounds 3 \
  --rules dispatch,nosplitkw,splitkw128c2,splitkw128c4 \
  --json $R/probe.json > $R/probe.txt 2>&1
tail -25 $R/probe.txt | cut -c1-200
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
