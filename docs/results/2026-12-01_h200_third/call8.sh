#!/bin/bash
# call 8 (2026-12-01, third session, one H200): mode none BN 224 with 6 store buffers instead
# of 4 (the 17 KB of shared memory its 4 mainloop stages leave), so a single-tile CTA's seven
# subtile stores wait for one buffer reuse instead of three (generated/epi6: mode none only,
# cubins only) against the committed build (generated/): the mode-none GPU tests on epi6, then
# new / old ABBA at BN 224 (fused_fixed.py none).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=.
D=docs/results/2026-12-01_h200_third
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
CODEGEN_CACHE_DIR=generated/epi6 timeout 120 python3 -m pytest -m gpu -q tests/gpu/test_gemm_none.py tests/gpu/test_last_row_tile.py::test_none_ragged_last_tile > $R/tests.txt 2>&1
echo "tests done $(( $(date +%s)-T0 ))s"; tail -2 $R/tests.txt
for s in new1 old1 old2 new2; do
  C=generated; case $s in new*) C=generated/epi6 ;; esac
  CODEGEN_CACHE_DIR=$C timeout 50 python3 $D/fused_fixed.py $s $R/n_$s.json 256,512,1024,2048,8192 768,1536,2304 224x1,224x2 none > $R/n_$s.txt 2>&1
  echo "none $s done $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
