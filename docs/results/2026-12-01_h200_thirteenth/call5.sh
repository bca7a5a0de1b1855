#!/bin/bash
# call 5 (thirteenth session, one H200): every GPU test and 40 s of fuzz with programmatic
# dependent launch on (CODEGEN_PDL=1) on the final code (the rs/ar widths 160 / 192, mode none's
# tile kernels past N, the merged input checks); kernels as in calls 2-4 (cache_all).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
bash tools/device_check.sh --pdl --fuzz-s 40 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "$(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
