#!/bin/bash
# Call 3 of the twenty-first session (2026-12-02), one H200, cache_gpu from HEAD + the two rules
# carried. Held out, at fresh random shapes (seeds 20261243 / 20261244):
# 1. dispatch.WEIGHT_ON_LINES_RULE: W re-laid on the lines, x contiguous off them; the op's
#    dispatch (op/padW) against its choice before the rule (op/padW@before), torch.mm and the
#    op on contiguous tensors and both re-laid for context. 14 shapes x 7 M.
# 2. dispatch.UNALIGNED_SPLITK_FIRST_MAX_M: contiguous rows off the lines at small N where
#    choose_splitk's spread clause (clusters of 2) had a choice; dispatch vs splitk20. 12 x 4 M.
# 3. GPU tests + 20 s of fuzz on this tree (tests/gpu/test_strided_views.py has the new layout's).
source tools/device_env.sh cache_gpu || exit $?
timeout 240 python3 tools/probes/padded_rows.py --rounds 3 --paths mm,op,op/padW,op/padW@before,op/pad \
  --shapes 12048:1960,10984:9184,15120:15336,5336:10272,8800:10680,8872:5128,4640:14704,9536:14344,9888:9104,3032:13096,8544:6344,11320:10936,14744:536,2472:736 \
  --ms 24,48,96,144,200,288,448 --json $R/padw.json > $R/padw.txt 2>&1
tail -3 $R/padw.txt | cut -c1-260
timeout 120 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes --rules dispatch,splitk20 \
  --shapes 1968:12168,1200:7208,1936:4208,2008:8936,1232:6392,1960:3480,888:6672,1224:12104,704:5736,1192:3240,896:16024,744:2896 \
  --ms 144,200,288,400 --json $R/splitk.json > $R/splitk.txt 2>&1
tail -3 $R/splitk.txt | cut -c1-200
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
