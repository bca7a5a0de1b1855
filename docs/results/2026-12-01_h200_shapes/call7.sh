#!/bin/bash
# call 7 (2026-12-01, fourth session, one H200): re-pick issue 9's mode-none decode rows (N 7168,
# K 768/1536/2304, M 16..512) with the token tiles 80/96/112 among the candidates:
# bench_decode --both-regimes (interleaved rounds), tools/merge_tuning.py (a row changes when
# the best beats its choice by > 2%, worse of warm/cold), then the new tables as dispatched
# against torch.mm (choice_ab.py, 7 rounds, warm and cold).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=.
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
MS=16,24,32,48,64,80,96,112,128,144,160,176,192,208,224,240,256,272,288,320,352,384,400,416,448,480,512
for K in 2304 1536 768; do
  timeout $([ $K = 2304 ] && echo 150 || echo 130) python3 tools/bench_decode.py --both-regimes --ms $MS --ks $K --json $R/sweep_$K.json > $R/sweep_$K.txt 2>&1
  echo "sweep K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
python3 - <<PY
import json, glob
docs = [json.load(open(f)) for f in sorted(glob.glob("$R/sweep_*.json"))]
json.dump({"device": docs[0]["device"], "rows": [r for d in docs for r in d["rows"]]}, open("$R/sweep.json", "w"), indent=1)
PY
python3 tools/merge_tuning.py --base generated --sweep $R/sweep.json --out $R/new > $R/merge.txt 2>&1
echo "merge rc=$?"; cat $R/merge.txt | head -40
cp $R/new/tuning/sm_90a_none_*.json generated/tuning/
MS2=16,17,24,32,48,64,80,96,100,112,128,144,160,176,192,200,208,224,240,256,272,288,300,320,352,384,400,416,448,480,500,512
for K in 2304 768 1536; do
  timeout 35 python3 tools/probes/choice_ab.py --shapes 7168:$K --ms $MS2 --rules dispatch \
    --both-regimes --rounds 7 --json $R/d_$K.json > $R/d_$K.txt 2>&1
  echo "verify K=$K rc=$? $(( $(date +%s)-T0 ))s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
