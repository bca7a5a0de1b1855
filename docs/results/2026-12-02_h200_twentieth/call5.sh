#!/bin/bash
# Twentieth session, call 5 (the A/B first: a failed start left ~400 s of device time): every
# GPU test + fuzz on the final dispatch; the tile schedule's
# cta_group 1 price on aligned rows (dispatch.TILE_CG1_PRICE_ALIGNED 1.1, fitted on call 4) held
# out against the price before (`tile19`, 1.2) at 16 fresh random shapes with K a multiple of 64
# (seed 20261232, N 512..16384) x M 600 / 850 / 1100 / 1400 (37 of 64 points move).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 100 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,tile19 \
  --shapes 8728:13696,14952:12032,8464:7616,15384:11008,15296:15936,13440:11904,6984:11328,7728:8896,1824:8064,12616:9024,9552:11776,8992:5888,7032:15936,4976:2944,5456:2304,2264:5888 \
  --ms 600,850,1100,1400 --json $R/t.json > $R/t.txt 2>&1
tail -2 $R/t.txt | cut -c1-200
timeout 175 bash tools/device_check.sh --fuzz-s 10 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
