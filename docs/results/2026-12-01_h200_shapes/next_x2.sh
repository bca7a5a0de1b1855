#!/bin/bash
# For the next session lent nvidia-h200-x2 (written 2026-12-01, fourth session; NOT run).
# Supersedes ../2026-12-01_h200_third/next_x2.sh (its `check` and one timing run of `large` /
# `decode` ran in calls 9-12 here; its A/B did not). Build here first (CPU, ~2 min), narrowed so
# the carry stays under 64 MiB with the checkout (~36 MB):
#   codegen build --tp 2 --arch sm_90a --transport unicast --no-progress --cache-dir cache_tp2
#   mkdir -p cache_tp2/tuning && cp docs/results/2026-12-01_h200_third/tuning/*.json cache_tp2/tuning/
#   python tools/ab_cubins.py 68898f8 --cache-dir cache_tp2/ab_prev --cubins-only -- --tp 2 \
#       --arch sm_90a --transport unicast --schedule tile --mode rs,ar   (grouped order, stores at once)
#   python tools/ab_cubins.py 3b222c0 --cache-dir cache_tp2/ab_old --cubins-only -- --tp 2 \
#       --arch sm_90a --transport unicast --schedule tile --mode rs,ar   (before the grouped order)
# then carry `cache_tp2` and run:
#   bash docs/results/2026-12-01_h200_shapes/next_x2.sh large   (~8 min: issue 10, 3 builds A/B)
#   bash docs/results/2026-12-01_h200_shapes/next_x2.sh smalln  (~3 min: fused decode at N 4096)
# `smalln` asks whether the fused decode kernels want mode none's wave fill at small N: without
# a table rs/ar run one 64-row W tile per CTA (N / 64 = 64 CTAs at N 4096, half the SMs); the
# wide kernel (cta_group 2) with token tiles of 64 puts 32 W tiles x 4 token tiles = 128 CTAs
# at M 256. Mode none gained 1.5x there (BENCHMARKS.md, fourth session); whether the exchange
# keeps it on the link is the question.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=. CODEGEN_CACHE_DIR=cache_tp2
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
TR="torchrun --nproc-per-node 2"
case "${1:-}" in
  large)
    # new (deferred stores + grouped order) / prev (68898f8) / old (3b222c0), A B C C B A
    timeout 570 python3 tools/ab_time.py --side new=cache_tp2 --side prev=cache_tp2/ab_prev \
      --side old=cache_tp2/ab_old --reps 2 --timeout 90 --out $R/large -- $TR \
      tools/bench_multi_gpu.py --modes rs,ar --ms 2048,8192,32768 --ks 768,2304 --link-mib 512 \
      --replays 10 --no-ours-gemm --schedule tile --json {json}
    echo "large-M done $(( $(date +%s)-T0 ))s" ;;
  smalln)
    for fix in "" "--schedule swapab --bn 64 --cta-group 2" "--schedule swapab --bn 128 --cta-group 2"; do
      tag=$(echo "${fix:-dispatch}" | tr -d ' -' )
      timeout 150 $TR tools/bench_multi_gpu.py --modes rs,ar --n 4096 --ks 2048,7168 \
        --ms 64,128,256,384,512 $fix --json $R/smalln_$tag.json > $R/smalln_$tag.txt 2>&1
      echo "smalln $tag rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/smalln_$tag.txt | cut -c1-110
    done ;;
  *) echo "next_x2.sh: say large or smalln" >&2; exit 64 ;;
esac
cd $OUT && tar czf r.tgz r && rm -rf r
