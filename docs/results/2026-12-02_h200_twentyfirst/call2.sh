#!/bin/bash
# Call 2 of the twenty-first session (2026-12-02), one H200, cache_gpu from HEAD carried.
# 1. tools/probes/padded_rows.py: rows off the 128-byte lines laid out three ways (contiguous;
#    W re-laid on the lines as RowParallelLinear does by default, x contiguous; both re-laid),
#    torch.mm and the op on each, the op on re-laid W at its rows-on-lines choice, and x staged
#    into a re-laid buffer first. 4 model shapes (Qwen2-72B-like N 8192 K 3696 / 7392, N 7168
#    K 2360, N 3584 K 1480) + 8 random, M 16 / 64 / 176 / 384.
# 2. Every candidate at small N (N 512..4096) with rows off the lines, M 120 / 250 / 384: where
#    the L2-traffic model picked swapab and splitk won by 1.3x (call 1, N 984 K 1480).
source tools/device_env.sh cache_gpu || exit $?
timeout 260 python3 tools/probes/padded_rows.py --rounds 3 \
  --shapes 8192:3696,8192:7392,7168:2360,3584:1480,1608:10128,3024:14616,15264:9736,1440:1200,11368:13320,7448:10464,5440:6288,16304:2504 \
  --ms 16,64,176,384 --json $R/padded.json > $R/padded.txt 2>&1
tail -50 $R/padded.txt | cut -c1-260
timeout 230 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,fill19,cands \
  --shapes 3184:2672,2288:14960,1624:9224,976:15024,3536:12152,1496:13832,1144:16152,1192:6760,1480:11280,536:10576 \
  --ms 120,250,384 --json $R/smalln.json > $R/smalln.txt 2>&1
tail -32 $R/smalln.txt | cut -c1-200
cd $OUT && tar czf r.tgz r && rm -rf r
