#!/bin/bash
# call 1 (fourteenth session, one H200): rs/ar's tile kernels with their last N tile past N
# (contract.tile_ragged_n now every mode on sm_90a: the reduction and the AR copy-out masked at
# N, templates/comm_phase.py.j2), so rs/ar serve any N a multiple of 64 at every M (before: N 704,
# 1088, Falcon's 4544 only up to 512 rows).
# Build (CPU): cache_gpu = this tree's kernels (codegen build --tp 2,4,8 --arch sm_90a
# --transport unicast; the third session's tuning tables copied in); cache_old = 375628f's rs/ar
# tile kernels at TP 2 (tools/ab_cubins.py ... --mode rs,ar --schedule tile --tp 2 --bn 128,256
# --cta-group 2), both stripped to cubins.
# (A) every GPU test (new: test_fused_tile_past_n, TP 2/4/8 x 7 (width, cta_group) at N 704 /
#     4544, M 1..4096 up and down, first output kept, graph replay; the dispatcher at N 704 / 1088
#     / 4544 to M 8192) and 40 s of fuzz (it now draws rs/ar tile widths past N), device_check.sh;
# (B) no regression where the width divides N: old against new rs/ar tile kernels (N 7168, two
#     virtual ranks), tools/ab_time.py A B B A. Prediction 1.00 +- 0.01 (the masks add a min and
#     a compare per 16-byte vector to a loop bound by its loads);
# (C) the ragged N: which width the rule should take (two virtual ranks, N 704 / 1088 / 4544,
#     widths 128..256 at cta_group 2 against the default). Prediction: per output column within
#     10% of N 7168's at the same width (one partial N tile per row block: up to BN - 64 columns
#     of MMA wasted, none of the exchange).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 300 bash tools/device_check.sh --fuzz-s 40 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "A $(( $(date +%s)-T0 ))s"
timeout 110 python3 tools/ab_time.py --side old=cache_old --side new=cache_gpu --out $R/ab --reps 2 --timeout 26 -- \
  python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 --shapes 7168:1536 --ms 1024,4096 \
  --choices tile128c2,tile256c2 --rounds 3 --json {json} > $R/ab.txt 2>&1
tail -6 $R/ab.txt
echo "B $(( $(date +%s)-T0 ))s"
timeout 130 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 704:4096,1088:4096,4544:1536,4544:4096,7168:1536 --ms 1024,2048,8192 \
  --choices default,tile128c2,tile192c2,tile224c2,tile256c2 --rounds 2 \
  --json $R/ragged.json > $R/ragged.txt 2>&1; tail -40 $R/ragged.txt | cut -c1-200
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
