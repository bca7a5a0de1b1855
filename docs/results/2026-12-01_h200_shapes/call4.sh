#!/bin/bash
# call 4 (2026-12-01, fourth session, one H200): issue 9's mode-none target as dispatched (the
# tables), N = 7168, K 768/1536/2304, every table row's M from 16 to 512 and some between rows,
# against torch.mm, interleaved (choice_ab.py, 7 rounds, warm and cold; the score is the worse
# of the two ratios). Then the fill rule's weakest shapes of call 2 with every candidate.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
MS=16,17,24,32,48,64,80,96,100,112,128,144,160,176,192,200,208,224,240,256,272,288,300,320,352,384,400,416,448,480,500,512
for K in 2304 768 1536; do
  timeout 150 python3 tools/probes/choice_ab.py --shapes 7168:$K --ms $MS --rules dispatch \
    --both-regimes --rounds 7 --json $R/d_$K.json > $R/d_$K.txt 2>&1
  echo "K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
timeout 150 python3 tools/probes/choice_ab.py --shapes 4096:2048,5120:3456,4096:14336 \
  --ms 192,256,320,384,448,512 --rules fill,cands --rounds 3 --json $R/c.json > $R/c.txt 2>&1
echo "cands rc=$? $(( $(date +%s)-T0 ))s"; grep "N=" $R/c.txt
cd $OUT && tar czf r.tgz r && rm -rf r
