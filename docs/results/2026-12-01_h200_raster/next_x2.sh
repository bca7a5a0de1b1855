#!/bin/bash
# For the next session that is lent nvidia-h200-x2 (written 2026-12-01, NOT run): validate and
# time this session's kernels (grouped visiting order in every tile kernel, the rs/ar units in
# the same order, mode none's deferred stores) on two real ranks. Needs the cache built here:
#   mkdir -p generated/tuning && cp docs/results/2026-12-01_h200_raster/tuning/*.json generated/tuning/
#   codegen build --tp 2,4,8 --arch sm_90a --transport unicast --no-progress
#   python tools/ab_cubins.py 3b222c0 --cache-dir generated/ab_old -- --tp 2 --arch sm_90a \
#       --transport unicast --schedule tile --mode rs,ar        (the order before the groups)
# then, carrying `generated`: run `bash docs/results/2026-12-01_h200_raster/next_x2.sh` (~8 min).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
# 1. correctness on one GPU and on two real ranks (GPU tests, fuzz, torchrun checks, Llama block)
timeout 330 bash tools/device_check.sh --gpus 2 --fuzz-s 30 --out $R/dc > $R/device_check.txt 2>&1
echo "device_check exit $? $(( $(date +%s)-T0 ))s"; grep -E "PASS|FAIL" $R/device_check.txt
# 2. issue 10's large-M table, new (grouped) / old (3b222c0 order) in alternation
timeout 240 python3 tools/ab_time.py --side new=generated --side old=generated/ab_old --reps 1 \
  --timeout 110 --out $R/large -- torchrun --nproc-per-node 2 tools/bench_multi_gpu.py \
  --modes rs,ar --ms 2048,8192,32768 --ks 768,2304 --link-mib 512 --replays 10 --no-ours-gemm \
  --schedule tile --json {json}
echo "large-M done $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
