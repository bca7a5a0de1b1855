#!/bin/bash
# Eighteenth session, call 5 (one H200; trimmed to the ~4 minutes of device time left): call 4
# found the decode kernels ~1.8x slower where a row of x / W is not a multiple of 128 bytes
# (K 2360 / 2312 against 2304 / 2368 at N 7168, M 160; torch.mm ~1.2x slower). Does the TMA
# descriptors' L2 promotion (the runtime encodes them: codegen/runtime/tma.py, 128B until now)
# change that? Each promotion in its own process; K aligned (2304) and not (2360, 3696 =
# Qwen2-72B's 29568 / 8), M 16 / 160.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
for p in 128B 256B none; do
  timeout 42 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --l2-promotion $p \
    --rules dispatch,tile128c2 --shapes 7168:2304,7168:2360,8192:3696 --ms 16,160 \
    --json $R/p$p.json > $R/p$p.txt 2>&1; echo "$p rc=$? $(grep -c '^N=' $R/p$p.txt) points"
done
cd $OUT && tar czf r.tgz r && rm -rf r
