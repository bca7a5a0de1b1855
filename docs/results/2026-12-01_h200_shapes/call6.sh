#!/bin/bash
# call 6 (2026-12-01, fourth session, one H200): mode-none token tiles 80/96/112 (new kernels):
# device_check, then the fill rule (which now weighs them) against the fill rule's choice of
# call 2-5 at the small-N shapes, and every candidate at N = 7168 (M 80..256) to see whether
# they would change the tables' rows. choice_ab.py, interleaved rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 45 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/choice_ab.py \
  --shapes 4096:2048,4096:14336,3584:2368,5120:3456,5120:1280,8192:3584,2048:5632 \
  --ms 96,112,160,192,224,256,288,320,352,384,416,448 --rules fill-x80.96.112,fill --rounds 5 \
  --json $R/fill.json > $R/fill.txt 2>&1
echo "fill rc=$? $(( $(date +%s)-T0 ))s"; grep "N=" $R/fill.txt | cut -c1-120
timeout 150 python3 tools/probes/choice_ab.py --shapes 7168:2304,7168:768 \
  --ms 80,96,112,160,192,224,256 --rules dispatch,fill,cands --both-regimes --rounds 3 \
  --json $R/c7168.json > $R/c7168.txt 2>&1
echo "c7168 rc=$? $(( $(date +%s)-T0 ))s"; grep "N=" $R/c7168.txt | cut -c1-140
cd $OUT && gzip -9 r/dc/fuzz_gpu.log; tar czf r.tgz r && rm -rf r
