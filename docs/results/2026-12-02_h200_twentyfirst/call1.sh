#!/bin/bash
# Call 1 of the twenty-first session (2026-12-02): the twentieth session's next_h200.sh as written.
# cache_gpu from HEAD first (docs/results/2026-12-02_h200_nineteenth/README.md has the command),
# carry it, run:   bash docs/results/2026-12-02_h200_twentieth/next_h200.sh
# 1. Every GPU test + fuzz on HEAD: call 5 ran the final dispatch, but its one failure (a width
#    assertion in tests/gpu/test_gemm_none.py at N 2880) was updated after it and never re-run.
# 2. A fit set for the L2-traffic model's known misses (the tile schedule's width within a
#    cta_group off the lines, cta_group 1 at one 128-row tile): every candidate at fresh random
#    shapes off the lines x M in 97..448 (re-seed; fit.py's scoring takes the JSON as is).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
SHAPES=$(python3 -c "import random; r=random.Random(20261240); s=[]
while len(s) < 12:
    N, K = 8 * r.randint(64, 2048), 8 * r.randint(64, 2048)
    if K % 64: s.append(f'{N}:{K}')
print(','.join(s))")
timeout 200 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,fill19,cands \
  --shapes $SHAPES --ms 120,176,250 --json $R/cands.json > $R/cands.txt 2>&1
tail -2 $R/cands.txt | cut -c1-200
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
