#!/bin/bash
# call 7 (thirtieth session, one H200): after the review commit (the streamk partial wait reports
# through report_timeout; one launch path in GemmRsAr._launch_on): the streamk GPU tests and the
# mode-none GPU tests on the rebuilt streamk kernels.
source tools/device_env.sh cache_gpu || exit $?
timeout 150 python3 -m pytest -m gpu -q tests/gpu/test_streamk.py tests/gpu/test_gemm_none.py tests/gpu/test_errors.py > $R/t.txt 2>&1
echo "rc=$?"; tail -3 $R/t.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
