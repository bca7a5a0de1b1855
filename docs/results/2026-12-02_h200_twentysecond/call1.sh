#!/bin/bash
# call 1 (twenty-second session, one H200): (A) every GPU test + 20 s of fuzz on HEAD (the
# twenty-first session's last GPU-run commit was call 4; fuzz last ran in its call 3);
# (B) rs/ar dispatch at random shapes on two virtual ranks against every candidate of the
# tuning sweep (fused_choice_ab.py --choices default,cands), both tensors contiguous (a direct
# GemmRsAr user; at K % 64 != 0 both rows off the 128-byte lines). Prediction: at K % 64 == 0 the
# default within 0.95 of the best; at K % 64 != 0 lower (the rs/ar rules never read the layout;
# mode none's model priced the decode kernels 1.8x per off row, the tile schedule 1.2x).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
SHAPES=5120:1536,2560:2472,7040:976,4480:3328,8192:1824,5248:848
timeout 330 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 --shapes $SHAPES \
  --ms 48,160,320 --choices default,cands --rounds 2 --json $R/fused_cands.json > $R/fused_cands.txt 2>&1
cut -c1-180 $R/fused_cands.txt | tail -40
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
