#!/bin/bash
# call 4 (2026-12-01, third session, one H200): the BN 256 changes of the deferred stores:
# rs/ar BN 256 defer all but EPI_NOW subtiles (rs 1, ar 2; no spill), mode none BN 256 gets
# 232 consumer registers (its 8-byte spill gone); AR BN 224 TP 8 back to immediate stores.
#   1. device_check (GPU tests + fuzz) with the final build (generated/);
#   2. rs/ar BN 256 new / old (generated/ab_old = 68898f8) ABBA on two virtual ranks;
#   3. mode none BN 224/256 new / call-3 build (generated/ab_none) ABBA;
#   4. mode none as dispatched (tables of tuning/) once more.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_third
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 250 bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1
echo "device_check done $(( $(date +%s)-T0 ))s"; cat $R/dc.txt
for s in new1 old1 old2 new2; do
  C=generated; case $s in old*) C=generated/ab_old ;; esac
  CODEGEN_CACHE_DIR=$C timeout 60 python3 $D/fused_fixed.py $s $R/f_$s.json 1024,2048,4096,8192,16384 768,1536,2304 256x1,256x2 > $R/f_$s.txt 2>&1
  echo "fused $s done $(( $(date +%s)-T0 ))s"; tail -1 $R/f_$s.txt
done
for s in new1 old1 old2 new2; do
  C=generated; case $s in old*) C=generated/ab_none ;; esac
  CODEGEN_CACHE_DIR=$C timeout 50 python3 $D/fused_fixed.py $s $R/n_$s.json 1024,2048,4096,8192,16384 768,1536,2304 224x1,256x1,256x2 none > $R/n_$s.txt 2>&1
  echo "none $s done $(( $(date +%s)-T0 ))s"; tail -1 $R/n_$s.txt
done
timeout 60 python3 tools/bench_decode.py --dispatch-only --both-regimes --ms 16,64,128,256,352,384,512,1024,2048,4096,8192,16384 --ks 768,1536,2304 --json $R/d.json > $R/d.txt 2>&1
echo "dispatch done $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
