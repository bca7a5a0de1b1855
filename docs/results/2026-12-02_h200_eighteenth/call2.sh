#!/bin/bash
# Eighteenth session, call 2 (one H200): every kernel candidate (`--rules dispatch,cands`) at
# the points of call 1's survey where mode none's dispatch ran below 0.9x torch.mm (worse of
# warm and cold), to tell a wrong pick (a better kernel exists) from a weak kernel.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,cands \
  --shapes $2 --ms $3 --json $R/$4.json > $R/$4.txt 2>&1; echo "$4 rc=$?"; }
run 110 3000:10504,7008:4184,5720:5592 64,160,320 a
run 90 840:14504,1352:11752 160,320 b
run 80 5712:11200,8544:4384,5720:5592 640 c
run 70 392:5448,840:14504 1536,4096 d
run 90 7232:2360,8960:5256 64,160,320 e
run 50 5344:696,5720:5592 1,16 f
cd $OUT && tar czf r.tgz r && rm -rf r
