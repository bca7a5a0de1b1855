#!/bin/bash
# Nineteenth session, call 1 (one H200): the eighteenth session's next_h200.sh (every GPU test +
# fuzz on HEAD; the unaligned-row fill model held out against fill17 at 12 random shapes with
# K % 64 != 0), and row_layout.py with fixed kernels (x and W aligned apart) to see which
# operand's rows off the 128-byte lines cost the decode kernels, at both L2 promotions.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt 2>&1
timeout 180 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,fill17 \
  --shapes $2 --ms 168,248,345,385,512 --json $R/$3.json > $R/$3.txt 2>&1; echo "$3 rc=$? $(grep -c '^N=' $R/$3.txt) points"; }
run 110 15504:8400,4216:15928,5216:10456,8600:9784,7240:7608,2432:13904 u1
run 110 10752:7648,14184:14424,2296:7336,4400:1488,11944:11360,2128:14352 u2
timeout 100 python3 tools/probes/row_layout.py --shapes 7168:2360,2048:4104,8192:3696 --ms 16,160,512 \
  --choices dispatch,swapab80c2,swapab160c1,tile128c2 --json $R/layout128B.json > $R/layout128B.txt 2>&1
echo "layout 128B rc=$?"
timeout 50 python3 tools/probes/row_layout.py --l2-promotion 256B --shapes 7168:2360,2048:4104 \
  --ms 16,160,512 --json $R/layout256B.json > $R/layout256B.txt 2>&1; echo "layout 256B rc=$?"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
