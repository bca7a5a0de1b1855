#!/bin/bash
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
log() { echo "$(date +%T) $*" >> $R/times.txt; }
log start
timeout 60 python3 -m pytest -m gpu tests/gpu/test_swapab.py -q -k "every_token_tile" 2>&1 | tail -5 > $R/gpu_tt.txt; log tt
timeout 90 torchrun --nproc-per-node 2 tests/multigpu/run_correctness.py --modes rs,ar --configs 112x1 --ms 1,2,15,16,17,63,64,65,127,128,129,255,511 --ks 768,2304 --skip-extra --no-dispatch > $R/corr.txt 2>&1; echo rc=$? >> $R/corr.txt; log corr
if grep -q "0 failed" $R/corr.txt; then
timeout 60 python3 tools/bench_decode.py --ms 400,416 --ks 768,1536,2304 --both-regimes --tune-out $R/tune_none --json $R/none208.json > $R/none208.txt 2>&1; log none208
B="--modes rs,ar --replays 20 --link-mib 0 --no-ours-gemm"
timeout 150 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py $B --ms 80,96,112,128 --ks 768,1536,2304 --cold-weights --tune-out $R/tune_fused --json $R/tune_fused.json --md $R/tune_fused.md > $R/tune_fused.txt 2>&1; echo rc=$? >> $R/tune_fused.txt; log tunefused
timeout 80 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py $B --ms 16,32,64,128,256,512 --ks 768 --cold-weights --json $R/k768_cold.json --md $R/k768_cold.md > $R/k768_cold.txt 2>&1; echo rc=$? >> $R/k768_cold.txt; log k768c
timeout 80 torchrun --nproc-per-node 2 tools/bench_multi_gpu.py $B --ms 16,32,64,128,256,512 --ks 768 --json $R/k768_warm.json --md $R/k768_warm.md > $R/k768_warm.txt 2>&1; echo rc=$? >> $R/k768_warm.txt; log k768w
fi
cd $OUT && tar czf r.tgz r && rm -rf r
