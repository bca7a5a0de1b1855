#!/bin/bash
# call 5 (twenty-second session, one H200): every GPU test after call 4's two failures
# (test_fused_n_not_a_multiple_of_128[8-rs/ar-None] pinned cta_group 1 where the tile clause now
# takes the tile schedule at N 2880 past one wave of eight virtual ranks; the test now allows it).
source tools/device_env.sh cache_gpu || exit $?
timeout 200 python3 -m pytest -q -m gpu tests/gpu -x > $R/gpu_tests.log 2>&1; tail -3 $R/gpu_tests.log
cd $OUT && tar czf r.tgz r && rm -rf r
