#!/bin/bash
# call 2 (fourteenth session, one H200): call 1's AR kernels of width 160..256 spilled (104-112
# stack bytes: the column masks' registers in the copy-out loop; test_no_local_memory caught it
# on the CPU) and ran 7-12% slower than 375628f's at N 7168. Now the masked loops run only for
# the pieces of the last N tile where it reaches past N (a runtime branch per piece), with half
# the vectors in flight; every other piece runs 375628f's loop. No kernel spills. The rs/ar
# width rule where no width divides N: the wave rule over 128 / 192 / 256 at every M past the
# decode rows (fitted on call 1's 24 points: worst 0.98 of the best).
# Build (CPU): cache_gpu = this tree's kernels (as call 1); cache_old = 375628f's (call 1).
# (A) every GPU test and 40 s of fuzz (device_check.sh);
# (B) old against new rs/ar tile kernels at N 7168 (a width dividing N: the unmasked loops),
#     tools/ab_time.py A B B A. Prediction 1.00 +- 0.02;
# (C) the width rule on held-out N (1472 = 23 x 64, 3008 = 47 x 64, 6208 = 97 x 64) and at M 600
#     (below BN_WIDE_MIN_M, where dividing N keeps width 128) against widths 128 / 192 / 256.
#     Prediction: the default within 5% of the best fixed width at every point.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 300 bash tools/device_check.sh --fuzz-s 40 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "A $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/ab_time.py --side old=cache_old --side new=cache_gpu --out $R/ab --reps 2 --timeout 28 -- \
  python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 --shapes 7168:1536,7168:4096 --ms 1024,4096 \
  --choices tile128c2,tile256c2 --rounds 3 --json {json} > $R/ab.txt 2>&1
for f in $R/ab/*.txt; do echo "== $f"; grep -E '^(rs|ar) ' $f | cut -c1-120; done
echo "B $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 1472:2048,3008:4096,6208:2048,704:4096,4544:4096 --ms 600,1024,2048,8192 \
  --choices default,tile128c2,tile192c2,tile256c2 --rounds 2 \
  --json $R/heldout.json > $R/heldout.txt 2>&1; tail -40 $R/heldout.txt | cut -c1-200
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
