#!/bin/bash
# call 7 (seventeenth session, one H200): the handoff's last MEMBAR.ALL.GPU (the free side's
# fence.acq_rel.cluster) run only where the cluster has another work item (working tree); on a
# cluster's last item its relaxed arrives only keep CTAs from exiting under another's reads.
# A: every GPU test + 30 s fuzz. B: new (cache_gpu) against b415219's splitk / splitkw kernels
# (cache_old) in alternation (A B B A), fixed kernels, warm weight: single-wave points, where
# it should show (prediction: 0.15-0.3 us less per call), and one multi-round point (none).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/abk \
  --reps 2 --timeout 28 -- python3 tools/probes/choice_ab.py \
  --shapes 1024:8192,2048:4096,1000:8192,3072:3072,1536:2304 --ms 1,16,64 --rounds 5 \
  --rules splitk-c2,splitk-c4 --json {json}
echo "B $(( $(date +%s)-T0 ))s"
timeout 80 python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/abkw \
  --reps 2 --timeout 18 -- python3 tools/probes/choice_ab.py \
  --shapes 704:8192,576:3120,512:2136 --ms 513 --rounds 5 \
  --rules splitkw128c2,splitkw128c4 --json {json}
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
