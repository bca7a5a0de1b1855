#!/bin/bash
# call 1 (2026-12-01, third session, one H200): defer_interleave.diff (mode none BN > 128: the
# pending tile's subtile i stored after k-tile i) built into generated/ (newest manifest) over
# the current kernels, which are also in generated/cur (mode none tile only):
#   1. device_check (GPU tests + fuzz) with the interleaved mode-none kernels;
#   2. interleaved / current ABBA without checks (diag_time.py), M 1024..16384;
#   3. kernel_gaps: kernel time vs the gap between back-to-back calls, ours vs torch.mm, warm
#      and cold, at the decode points that dip below 0.9x.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
P=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 260 bash tools/device_check.sh --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1
echo "device_check done $(( $(date +%s)-T0 ))s"; cat $R/dc.txt
for s in new1 cur1 cur2 new2; do
  C=generated; case $s in cur*) C=generated/cur ;; esac
  CODEGEN_CACHE_DIR=$C timeout 60 python3 $P/diag_time.py $s $R/e_$s.json 1024,2048,4096,8192,16384 768,1536,2304 > $R/e_$s.txt 2>&1
  echo "epi $s done $(( $(date +%s)-T0 ))s"
done
timeout 60 python3 tools/probes/kernel_gaps.py --ms 176,352,384,512 --ks 768,2304 --json $R/gaps_warm.json > $R/gaps_warm.txt 2>&1
timeout 60 python3 tools/probes/kernel_gaps.py --cold --ms 176,352,384,512 --ks 768,2304 --json $R/gaps_cold.json > $R/gaps_cold.txt 2>&1
echo "gaps done $(( $(date +%s)-T0 ))s"; cat $R/gaps_warm.txt $R/gaps_cold.txt
cd $OUT && tar czf r.tgz r && rm -rf r
