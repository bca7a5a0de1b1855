#!/bin/bash
# call 2 (twenty-eighth session, one H200): the refit of the L2-traffic model where every row
# starts on a 32-byte sector (dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS 2.0 -> 1.5 and
# UNALIGNED_SECTOR_ROW_FACTOR 0.75: the row prices x 0.75), fitted on the fit set's 177 points
# on sectors (call 1 held out from it: 0.946 -> 0.976 of the best), held out on fresh points,
# every candidate, warm and cold, the dispatch against `l2share27` (before the session) and
# `sector28a` (call 1's first cut, the share 2.0 alone). No kernel changed since call 1 (536
# GPU tests passed there), so no device_check.
# (B) the 4 shapes of call 1's seed-2802 draw it ran out of time for x call 1's 7 M;
# (C) 10 fresh random shapes (seed 2803, N 1024..16383, K 512..16383 with K % 16 == 0, K % 64
# != 0) x M 64 / 128 / 192 / 256 / 320 / 384 / 448 / 512.
# Prediction (host replay): B 18 of 28 moved against l2share27, C 35 of 80; ~1.10x where moved,
# ~0.97 of the best over all; against sector28a ~1.03x where moved (8 / 24 moved).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 170 python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,l2share27,sector28a,cands \
  --ms 96,160,224,288,352,416,480 --shapes 10472:3312,13720:1904,3560:13936,14384:7184 \
  --json $R/held_sector2b.json > $R/held_sector2b.txt 2>&1; echo "rc=$?"
echo "B $(( $(date +%s)-T0 ))s"
timeout $(( 560 - ($(date +%s)-T0) )) python3 tools/probes/choice_ab.py --both-regimes --rounds 2 --rules dispatch,l2share27,sector28a,cands \
  --ms 64,128,192,256,320,384,448,512 --shapes 4496:2128,5424:11168,13040:5424,1744:1392,4216:13552,11936:912,3344:13264,2464:12848,13992:3040,1912:16272 \
  --json $R/held_sector2.json > $R/held_sector2.txt 2>&1; echo "rc=$?"
echo "C $(( $(date +%s)-T0 ))s"
cut -c1-150 $R/held_sector2.txt | tail -8
cd $OUT && tar czf r.tgz r && rm -rf r
