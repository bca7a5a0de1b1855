#!/bin/bash
# call 3 (2026-12-01, third session, one H200): the committed state: deferred stores in mode
# none (every BN) and rs/ar BN 224 only (BN 128/256 rs/ar PTX identical to 68898f8), the
# mode-none tables re-picked from call 2's sweeps (tuning/, tools/merge_tuning.py):
#   1. device_check (GPU tests + fuzz);
#   2. mode none as dispatched, decode and large M, twice, both regimes;
#   3. rs/ar BN 224 on two virtual ranks, new / old ABBA (old = generated/ab_old, 68898f8).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_third
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 250 bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1
echo "device_check done $(( $(date +%s)-T0 ))s"; cat $R/dc.txt
for s in 1 2; do
  timeout 80 python3 tools/bench_decode.py --dispatch-only --both-regimes --ms 16,32,64,128,176,256,352,384,512,1024,2048,4096,8192,16384 --ks 768,1536,2304 --json $R/d_$s.json > $R/d_$s.txt 2>&1
  echo "dispatch $s done $(( $(date +%s)-T0 ))s"
done
for s in new1 old1 old2 new2; do
  C=generated; case $s in old*) C=generated/ab_old ;; esac
  CODEGEN_CACHE_DIR=$C timeout 60 python3 $D/fused_fixed.py $s $R/f_$s.json 1024,2048,4096,8192,16384 768,1536,2304 224x1,224x2 > $R/f_$s.txt 2>&1
  echo "fused $s done $(( $(date +%s)-T0 ))s"; tail -1 $R/f_$s.txt
done
cd $OUT && tar czf r.tgz r && rm -rf r
