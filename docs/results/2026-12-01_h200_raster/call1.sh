#!/bin/bash
# call 1 (2026-12-01, one H200): GPU tests + fuzz of the grouped-order build (generated/), then
# mode none old (generated/ab_old, HEAD 3b222c0) / new (generated) alternating twice, M 1024..16384,
# and ncu DRAM bytes of both at K = 2304.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
( timeout 170 python3 -m pytest -m gpu tests/gpu -q 2>&1 | tail -15 ) > $R/gpu_tests.txt
echo "gpu tests done $(( $(date +%s)-T0 ))s"; tail -1 $R/gpu_tests.txt
( timeout 60 python3 tools/fuzz_gpu.py --cases 1000 --budget-s 35 --json $R/fuzz.json 2>&1 | tail -4 ) > $R/fuzz.txt
echo "fuzz done $(( $(date +%s)-T0 ))s"; tail -1 $R/fuzz.txt
B="timeout 90 python3 tools/bench_decode.py --both-regimes --ms 1024,2048,4096,8192,16384 --ks 768,2304 --replays 10"
for rep in 1 2; do
  for side in new old; do
    C=generated; [ $side = old ] && C=generated/ab_old
    CODEGEN_CACHE_DIR=$C $B --json $R/${side}_$rep.json > $R/${side}_$rep.txt 2>&1
    echo "$rep $side done $(( $(date +%s)-T0 ))s"
  done
done
for side in new old; do
  C=generated; [ $side = old ] && C=generated/ab_old
  for M in 2048 8192; do
    CODEGEN_CACHE_DIR=$C timeout 40 ncu --clock-control none --cache-control all \
      --metrics dram__bytes_read.sum,gpu__time_duration.sum,lts__t_sector_hit_rate.pct \
      -k regex:"gemm_none" python3 $D/ncu_none.py $M 2304 > $R/ncu_${side}_${M}.txt 2>&1
  done
  echo "ncu $side done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
