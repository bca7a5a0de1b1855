#!/bin/bash
# Eighteenth session, call 3 (one H200): every kernel candidate (`--rules dispatch,cands`) of
# mode none at 20 random shapes (seed 18: N, K 1024..16384, multiples of 8), each at 5 random M
# (129..256, 257..448, 449..640, 641..900, 901..1200), worse of warm and cold: the fit set for
# the M 129..1200 rules (call 2 found the tile schedule's cta_group 2 and the fill model's
# decode picks up to 1.4x slower than another candidate there). The probe writes its JSON after
# every point, so a group cut by its timeout keeps what it timed.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
run() { timeout $1 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,cands \
  --shapes $2 --ms $3 --json $R/$4.json > $R/$4.txt 2>&1; echo "$4 rc=$? $(grep -c '^N=' $R/$4.txt) points"; }
run 100 3992:3032,11856:8376,6504:4944,4264:9040 255,303,571,792,1135 g1
run 100 15552:5352,4232:5176,15752:12352,2952:6336 173,317,492,762,1003 g2
run 100 13056:7008,10448:9336,4328:14296,12120:15632 255,312,632,794,1036 g3
run 100 1128:6632,7664:4632,13664:12936,7672:9832 217,408,595,780,1039 g4
run 100 10848:12632,5984:10064,2904:5632,8840:10328 166,383,624,723,998 g5
cd $OUT && tar czf r.tgz r && rm -rf r
