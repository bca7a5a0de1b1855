#!/bin/bash
# call 7 (2026-12-01, eighth session, one H200): row-strided x and weights (a column slice of a
# wider tensor, rows in a padded buffer; the TMA descriptors take the row stride). (1) At ragged
# K, which of the misaligned rows costs the time: tools/probes/row_layout.py (contiguous, W in a
# 64-aligned padded buffer, x and W so, the padded K itself) at call 2's slow points; (2)
# device_check.sh: every GPU test (tests/gpu/test_strided_views.py new) and 80 s of fuzz, whose
# cases now pass strided views a quarter of the time.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 150 python3 tools/probes/row_layout.py --shapes 2048:4104,4096:1000,8192:3696 \
  --ms 16,64,128,512 --rounds 3 --json $R/layout.json > $R/layout.txt 2>&1
echo "row_layout rc=$? $(( $(date +%s)-T0 ))s"; cat $R/layout.txt
bash tools/device_check.sh --fuzz-s 80 --out $R/dc
echo "device_check rc=$?"
grep -E "^E |FAILED" $R/dc/*.log | head -12
gzip -9 $R/dc/*.log
cd $OUT && tar czf r.tgz r && rm -rf r
