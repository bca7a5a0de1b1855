#!/bin/bash
# call 5 (seventeenth session, one H200): the spread clause written from call 4's F / W sets
# (from 25 k-tiles, clusters of 4 first where every pair gets one) held out at 7 random shapes
# (random.Random(202612175); call 4's H set had K no multiple of 8 and did not run), against
# the clause before (computed offline from the same fixed-kernel times: the dispatch ran, and
# splitk128c2 / splitk128c4, both regimes). Then every GPU test + 30 s fuzz on the final code.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 100 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes \
  --rules dispatch,bounds16,splitk128c2,splitk128c4 \
  --shapes 896:2456,1680:1704,928:2752,752:1560,1992:2264,520:1888,1392:2632 --ms 160,256,384,448 \
  --json $R/h.json > $R/h.txt 2>&1
echo "H $(( $(date +%s)-T0 ))s"
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
