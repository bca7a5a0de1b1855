#!/bin/bash
# Eighteenth session, call 5 (one H200; the ~4 minutes of device time left): call 4 found the
# decode kernels ~1.9x slower (warm) where a row of x / W is not a multiple of 128 bytes (K 2360
# / 2312 against 2304 / 2368 at N 7168, M 160; torch.mm ~1.2x). tools/probes/row_pitch.py: the
# op and torch.mm with x / W in row-padded buffers (128-byte rows) against contiguous, and the
# TMA descriptors' L2 promotion at 256B (128B until now); K 2360 and 3696 (Qwen2-72B's 29568 / 8).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 120 python3 tools/probes/row_pitch.py --shapes 7168:2360,8192:3696 --ms 16,160,1024 \
  --json $R/pitch.json > $R/pitch.txt 2>&1; echo "pitch rc=$? $(grep -c '^N=' $R/pitch.txt) points"
tail -4 $R/pitch.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
