#!/bin/bash
# call 8 (twenty-third session, one H200): the final code: every GPU test (incl.
# test_fused_n_not_a_multiple_of_128 after its fix: outputs checked before the pin, splitk
# allowed where a cluster per W tile fits the rank's share) + 30 s of fuzz, with the input
# checks a helper's review added this session (host side).
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
