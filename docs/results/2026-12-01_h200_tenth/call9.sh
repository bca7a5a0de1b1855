#!/bin/bash
# call 9 (tenth session, one H200): the final commit e046c21 (its kernels are cache_gpu's, the
# same keys as calls 4-8; the runtime with the splitk bound at 34 k-tiles and the 64-W-tile
# clause): every GPU test and 45 s of fuzz.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/dc.txt
gzip -9 $R/dc/*.log $R/dc/*.json 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
