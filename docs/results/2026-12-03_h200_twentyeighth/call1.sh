#!/bin/bash
# call 1 (twenty-eighth session, one H200): (A) every GPU test + 20 s of fuzz (HEAD with the
# sector share; no kernel changed); (B) the L2-traffic model's share of 2.0 where every row
# starts on a 32-byte sector (dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS, K % 16 == 0, K % 64 != 0)
# held out, unbiased: 16 fresh random shapes (seed 2802: N 1024..16383, K 512..16383 with 2K %
# 128 in {32, 64, 96}) x M 96 / 160 / 224 / 288 / 352 / 416 / 480, every candidate, the
# dispatch against `l2share27` (2.5 as before), warm and cold.
# Prediction: (A) all pass; (B) 37 of 112 moved (host replay), ~1.08x where moved (the fit
# moved 37 pooled points 1.146x), losses at most 1 in 5 of them.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 330 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,l2share27,cands \
  --ms 96,160,224,288,352,416,480 --shapes 6304:5360,11304:4208,1544:5152,6944:14000,7408:8432,7544:3728,6528:11120,1544:10208,5072:8624,9848:10256,2344:4640,2608:11600,10472:3312,13720:1904,3560:13936,14384:7184 \
  --json $R/held_sector.json > $R/held_sector.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/held_sector.txt | tail -20
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
