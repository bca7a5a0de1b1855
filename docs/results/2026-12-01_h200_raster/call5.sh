#!/bin/bash
# call 5 (2026-12-01, one H200): mode none as dispatched (the tables in use) against torch.mm at
# every table M in 16..512, K 768/1536/2304, both regimes: new (grouped order) / old (3b222c0)
# ABBA back to back, then each once after an elementwise kernel (issue 9's target).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
MS=16,24,32,48,64,80,96,112,128,144,160,176,192,208,224,240,256,272,288,320,352,384,400,416,448,480,512
B="timeout 90 python3 tools/bench_decode.py --dispatch-only --both-regimes --ms $MS --ks 768,1536,2304"
for s in new1 old1 old2 new2 new_ew old_ew; do
  C=generated; case $s in old*) C=generated/ab_old ;; esac
  E=""; case $s in *_ew) E="--after-elementwise" ;; esac
  CODEGEN_CACHE_DIR=$C $B $E --json $R/n_$s.json > $R/n_$s.txt 2>&1
  echo "$s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
