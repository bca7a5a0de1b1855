#!/bin/bash
# call 2 (sixteenth session, one H200): mode none's splitk kernels past N (contract.
# splitk_ragged_n: the last 64-row W tile may reach past N, so splitk serves an N no multiple
# of 64; choose_splitk counts ceil(N / 64) W tiles). A: every GPU test + 30 s fuzz (new:
# test_splitk.py's past-N tests; test_splitkw.py's dispatch test at N 1000 still expects the
# rule before, splitkw). B: at 9 N no multiple of 64 x M 1..448: torch.mm, the op's dispatch
# (now), the rule before (noraggedsplitk: the fill rule and choose_ragged_splitkw without
# splitk), splitk at M's token tile with clusters of 2 / 4, splitkw 128 with clusters of 4
# (warm weight, 3 rounds).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 280 python3 tools/probes/choice_ab.py \
  --shapes 1000:8192,1320:4104,1800:6000,600:14336,3696:8192,4000:4096,2888:2880,3000:8192,2440:5000 \
  --ms 1,16,64,128,200,256,448 --rounds 3 \
  --rules dispatch,noraggedsplitk,splitk-c2,splitk-c4,splitkw128c4 \
  --json $R/probe.json > $R/probe.txt 2>&1
tail -66 $R/probe.txt | cut -c1-250
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
