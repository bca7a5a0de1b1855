#!/bin/bash
# Nineteenth session, call 5 (one H200): every GPU test + fuzz on the commit (c254b9d: swapabx,
# its rule with the small-N bound, the shared cluster-sweep test helper); issue 9's mode-none
# target shapes (N 7168, K 768 / 1536 / 2304: rows on the lines, the rule does not act) with the
# dispatch against torch.mm, warm and cold.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 220 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
timeout 80 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch \
  --shapes 7168:768,7168:1536,7168:2304 --ms 16,32,64,128,256,512 --json $R/issue9.json > $R/issue9.txt 2>&1
echo "issue9 rc=$? $(grep -c '^N=' $R/issue9.txt) points"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
