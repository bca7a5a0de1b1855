#!/bin/bash
# call 4 (thirteenth session, one H200): call 3's host-time A/B again, eight processes (old new
# new old old new new old), since call 3's four varied by up to 2x between processes.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
H=docs/results/2026-12-01_h200_thirteenth/host_ab.py
for s in old1 new1 new2 old2 old3 new3 new4 old4; do
  case $s in old*) P=cache_oldrt ;; *) P=. ;; esac
  PYTHONPATH=$P timeout 60 python3 $H $s $R/host_$s.json > $R/host_$s.txt 2>&1; echo "$s rc=$?"
done
cd $OUT && tar czf r.tgz r && rm -rf r
