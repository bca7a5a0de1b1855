#!/bin/bash
# For the next session lent nvidia-h200-x2 (written 2026-12-01, third session; NOT run): check
# and time the kernels of 2026-12-01 on two real ranks. Supersedes
# ../2026-12-01_h200_raster/next_x2.sh. Build here first (CPU, ~2 min):
#   mkdir -p generated/tuning && cp docs/results/2026-12-01_h200_third/tuning/*.json generated/tuning/
#   codegen build --tp 2,4,8 --arch sm_90a --transport unicast --no-progress && codegen cache prune
#   python tools/ab_cubins.py 68898f8 --cache-dir generated/ab_prev --cubins-only -- --tp 2 \
#       --arch sm_90a --transport unicast --schedule tile --mode rs,ar   (grouped order, stores at once)
#   python tools/ab_cubins.py 3b222c0 --cache-dir generated/ab_old --cubins-only -- --tp 2 \
#       --arch sm_90a --transport unicast --schedule tile --mode rs,ar   (before the grouped order)
# then, carrying `generated` (check `du -sb generated` + the checkout stay under 64 MiB), two calls:
#   bash docs/results/2026-12-01_h200_third/next_x2.sh check   (~6 min: correctness, 1 and 2 GPUs)
#   bash docs/results/2026-12-01_h200_third/next_x2.sh large   (~8 min: issue 10's table, 3 builds)
# and, if time is left, issue 9's decode table with today's kernels:
#   bash docs/results/2026-12-01_h200_third/next_x2.sh decode
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
case "${1:-}" in
  check)
    timeout 560 bash tools/device_check.sh --gpus 2 --fuzz-s 30 --out $R/dc > $R/device_check.txt 2>&1
    echo "device_check exit $? $(( $(date +%s)-T0 ))s"; grep -E "PASS|FAIL" $R/device_check.txt ;;
  large)
    # new (deferred stores + grouped order) / prev (68898f8) / old (3b222c0), A B C C B A
    timeout 570 python3 tools/ab_time.py --side new=generated --side prev=generated/ab_prev \
      --side old=generated/ab_old --reps 2 --timeout 90 --out $R/large -- torchrun \
      --nproc-per-node 2 tools/bench_multi_gpu.py --modes rs,ar --ms 2048,8192,32768 \
      --ks 768,2304 --link-mib 512 --replays 10 --no-ours-gemm --schedule tile --json {json}
    echo "large-M done $(( $(date +%s)-T0 ))s" ;;
  decode)
    timeout 570 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py --modes rs,ar \
      --ms 16,32,64,128,256,512 --ks 768,1536,2304 --json $R/decode.json > $R/decode.txt 2>&1
    echo "decode done $(( $(date +%s)-T0 ))s" ;;
  *) echo "next_x2.sh: say check, large or decode" >&2; exit 64 ;;
esac
cd $OUT && tar czf r.tgz r && rm -rf r
