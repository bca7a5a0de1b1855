#!/bin/bash
export PYTHONPATH=. PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
timeout 400 python3 tools/fuzz_gpu.py --cases 1000 --seed 1000 --budget-s 300 --json $R/fuzz.json > $R/fuzz.txt 2>&1; echo rc=$? >> $R/fuzz.txt
cd $OUT && tar czf r.tgz r && rm -rf r
