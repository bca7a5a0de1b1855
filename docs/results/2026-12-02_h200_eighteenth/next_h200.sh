#!/bin/bash
# For the next session on one H200 (written 2026-12-02, eighteenth session; NOT run: the device
# budget ran out before it). Build cache_gpu from HEAD first (see the seventeenth session's
# README), carry it, run:  bash docs/results/2026-12-02_h200_eighteenth/next_h200.sh
# 1. Every GPU test + fuzz on HEAD (the fill rule's unaligned-row model and the per-call row
#    strides in the op's plans never ran on the GPU; the tile cta_group rule did, call 4).
# 2. The unaligned-row fill model held out (fitted on calls 2-3 only, cross-validated by shape
#    on the host): `dispatch` against `fill17` (the rule before it) at 12 random shapes with K %
#    64 != 0 (seed 1819) x M 168 / 248 / 345 / 385 / 512, worse of warm and cold.
# 3. The padded-row remedy with the new rule (each layout gets its own choice now), and whether
#    the TMA descriptors' L2 promotion changes the misaligned cost (128B against 256B).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,fill17 \
  --shapes $2 --ms 168,248,345,385,512 --json $R/$3.json > $R/$3.txt 2>&1; echo "$3 rc=$? $(grep -c '^N=' $R/$3.txt) points"; }
run 120 15504:8400,4216:15928,5216:10456,8600:9784,7240:7608,2432:13904 u1
run 120 10752:7648,14184:14424,2296:7336,4400:1488,11944:11360,2128:14352 u2
for p in 128B 256B; do
  timeout 60 python3 tools/probes/row_layout.py --l2-promotion $p --shapes 7168:2360,8192:3696 \
    --ms 16,160,512 --json $R/layout$p.json > $R/layout$p.txt 2>&1; echo "layout $p rc=$?"
done
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
