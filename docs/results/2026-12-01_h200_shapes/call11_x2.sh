#!/bin/bash
# call 11 (2026-12-01, fourth session, nvidia-h200-x2, the last device minutes): issue 10's grid
# (M 2048..32768, K 768/1536/2304) and issue 9's (M 16..512, K 1536, and M 32/512 at K 768) with
# the 2026-12-01 kernels, one run each (no A/B against older builds: no time left).
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=. CODEGEN_CACHE_DIR=cache_tp2
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
TR="torchrun --nproc-per-node 2"
pack() { (cd $OUT && tar czf r.tgz r); }
timeout 60 $TR tools/bench_multi_gpu.py --modes rs,ar --ms 16,32,64,128,256,512 --ks 1536 --json $R/decode1536.json > $R/decode1536.txt 2>&1
echo "decode1536 rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/decode1536.txt | cut -c1-110; pack
timeout 40 $TR tools/bench_multi_gpu.py --modes rs,ar --ms 32,128,512 --ks 768 --json $R/decode768b.json > $R/decode768b.txt 2>&1
echo "decode768b rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/decode768b.txt | cut -c1-110; pack
timeout 110 $TR tools/bench_multi_gpu.py --modes rs,ar --ms 2048,4096,16384,32768 --ks 768,1536,2304 \
  --link-mib 512 --replays 5 --json $R/large2.json > $R/large2.txt 2>&1
echo "large2 rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/large2.txt | cut -c1-120; pack
rm -rf $OUT/r
