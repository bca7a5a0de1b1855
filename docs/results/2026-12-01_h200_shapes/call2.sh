#!/bin/bash
# call 2 (2026-12-01, fourth session, one H200): the wave-fill rule for mode none at M <= 512
# (dispatch.choose_none_by_fill): GPU tests + fuzz with it, then the rules before it against it,
# interleaved (tools/probes/choice_ab.py: 5 rounds in random order, medians), at the shapes of
# call 1 and at N = 7168 (K 1536: against the table's choice too).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
bash tools/device_check.sh --fuzz-s 60 --out $R/dc 2>&1 | tail -4
echo "device_check done $(( $(date +%s)-T0 ))s"
timeout $(( 560 - ($(date +%s)-T0) )) python3 tools/probes/choice_ab.py \
  --shapes 2048:5632,4096:512,4096:2048,4096:7168,4096:14336,5120:1280,5120:3456,3584:2368,8192:1024,8192:3584,8192:14336,16384:6656,7168:3584 \
  --ms 16,64,128,192,256,320,384,448,512 --rules rules,fill --json $R/ab.json > $R/ab.txt 2>&1
echo "rc=$? $(( $(date +%s)-T0 ))s"; grep -c "N=" $R/ab.txt; python3 -c "
import re,sys
for l in open('$R/ab.txt'):
    m = re.search(r'rules=(\S+):\S+\s+fill=(\S+):', l)
    if not m or m.group(1) != m.group(2): print(l.rstrip())
" | head -90
cd $OUT && tar czf r.tgz r && rm -rf r
