#!/bin/bash
# call 6 (2026-12-01, ninth session, one H200): the final commit (stream-K reverted, the splitk
# bound at 25 k-tiles, the tools' shared argument parser): every GPU test and 150 s of fuzz,
# and one choice_ab run through the new parser (N 2048 K 1600: the bound's smallest K).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 60 python3 tools/probes/choice_ab.py --shapes 2048:1600 --ms 1,16,64 --rules dispatch,rules \
  --both-regimes --rounds 3 --json $R/h_2048_1600.json 2>&1 | cut -c1-150
bash tools/device_check.sh --fuzz-s 150 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$? $(( $(date +%s)-T0 ))s"; tail -4 $R/dc.txt
gzip -9 $R/dc/*.log 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
