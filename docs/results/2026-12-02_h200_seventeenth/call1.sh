#!/bin/bash
# call 1 (seventeenth session, one H200): the splitk / splitkw handoff synchronised through
# shared memory only (templates/splitk_handoff.j2: release fence restricted to shared::cta +
# relaxed remote arrives, acquire.cluster waits, one fence.acq_rel.cluster on the free side;
# before: 2 KS + 2 MEMBAR.ALL.GPU in a row per tile). A: every GPU test + 30 s fuzz on the new
# kernels (cache_gpu, working tree). B / C: new (cache_gpu) against old (cache_old: HEAD
# 7512f6e's splitk / splitkw kernels) in alternation (A B B A), fixed kernels, warm weight.
# D: the new kernels over a K sweep (intercepts: what a call costs beyond its k-tiles).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/abk \
  --reps 2 --timeout 35 -- python3 tools/probes/choice_ab.py \
  --shapes 2048:8192,1024:14336,3072:6144,1000:8192 --ms 16,64,128,256 --rounds 3 \
  --rules splitk-c2,splitk-c4,dispatch --json {json}
echo "B $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/abkw \
  --reps 2 --timeout 28 -- python3 tools/probes/choice_ab.py \
  --shapes 704:8192,1320:4104,576:3120,1800:6000 --ms 513,1024 --rounds 3 \
  --rules splitkw128c2,splitkw128c4,dispatch --json {json}
echo "C $(( $(date +%s)-T0 ))s"
for K in 1024 4096 16384; do
  timeout 35 python3 tools/probes/choice_ab.py --shapes 1024:$K --ms 16 --rounds 3 \
    --rules swapab16c1,splitk16c2,splitk16c4 --json $R/ks_k$K.json > $R/ks_k$K.txt 2>&1
done
echo "D $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
