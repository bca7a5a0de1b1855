#!/bin/bash
# call 4 (2026-12-01, one H200): where the PDL trigger goes. A = wait+trigger at kernel start
# (generated/), B = wait only (out/genB), C = wait at start, trigger after the producer's last
# load (out/genC), OFF = generated/ with CODEGEN_DISABLE_PDL=1. Mode none, back-to-back and
# after an elementwise kernel.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
B="timeout 100 python3 tools/bench_decode.py --both-regimes --ms 16,32,64,128,192,256,384,512,2048 --ks 768,2304"
for rep in 1 2; do
  for cfg in A B C OFF; do
    case $cfg in A) E="";; B) E="CODEGEN_CACHE_DIR=out/genB";; C) E="CODEGEN_CACHE_DIR=out/genC";; OFF) E="CODEGEN_DISABLE_PDL=1";; esac
    env $E $B --json $R/b2b_${cfg}_$rep.json > $R/b2b_${cfg}_$rep.txt 2>&1
    env $E $B --after-elementwise --json $R/ew_${cfg}_$rep.json > $R/ew_${cfg}_$rep.txt 2>&1
    echo "$rep $cfg done $(( $(date +%s)-T0 ))s"
  done
done
cd $OUT && tar czf r.tgz r
