#!/bin/bash
# call 4 (twenty-fifth session, one H200; the last device time): every GPU test + 15 s of fuzz on
# the final dispatch (choose_splitk_short up to M 384; call 2 ran the suite with the bound at 192).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 15 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
