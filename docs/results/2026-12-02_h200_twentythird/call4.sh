#!/bin/bash
# call 4 (twenty-third session, one H200): splitk's clusters of 2 at N 3712..4096 (57..64 W
# tiles: dispatch.SPLITK_WIDE_MAX_W_TILES) below SPLITK_WIDE_MIN_K_TILES (56 k-tiles, K > 3520;
# fitted in the tenth session, before the seventeenth session's cheaper handoff). Call 3 found
# splitk32c2 0.98x / 1.01x torch.mm at N 4096 K 1792 / 2048 M 32 against the dispatch's 0.87x /
# 0.85x (the worse of warm and cold). A fit set: N 3712 / 3840 / 3968 / 4096 x K 1280..3520 x M
# 1 / 16 / 32 / 64, the dispatch against splitk at M's token tile in clusters of 2 (choice_ab
# splitk-c2), warm and cold.
# Prediction: splitk c2 >= 1.05x the dispatch from K ~1792 (28 k-tiles) at M <= 32, a wash
# (0.97x-1.03x) at M 64; below K 1536 the dispatch.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 400 python3 tools/probes/choice_ab.py --both-regimes --rounds 3 --rules dispatch,splitk-c2 \
  --ms 1,16,32,64 --shapes 3712:1280,3712:1536,3712:1792,3712:2048,3712:2560,3712:3072,3712:3520,3840:1280,3840:1536,3840:1792,3840:2048,3840:2560,3840:3072,3840:3520,3968:1280,3968:1536,3968:1792,3968:2048,3968:2560,3968:3072,3968:3520,4096:1280,4096:1536,4096:1792,4096:2048,4096:2560,4096:3072,4096:3520 \
  --json $R/wide_splitk.json > $R/wide_splitk.txt 2>&1; echo "rc=$?"; tail -3 $R/wide_splitk.txt
echo "A $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
