#!/bin/bash
# call 2 (thirty-first session, one H200): the two streamk tests call 1 failed, rewritten: the
# set-made-in-a-capture test on fresh device buffers (call 1's capture stream already had a set
# from an earlier test), and the in-kernel time-out with a long GEMM on 66 CTAs as the blocker
# (call 1's lone rs rank did not provoke one); then the streamk file and the mode-none tests.
source tools/device_env.sh cache_gpu || exit $?
timeout 120 python3 -m pytest -m gpu -q -rf -s tests/gpu/test_streamk.py -k "capture or time_out" > $R/two.txt 2>&1
echo "two rc=$?"; grep -E "record|passed|failed" $R/two.txt | tail -5 | cut -c1-400
timeout 200 python3 -m pytest -m gpu -q -rf tests/gpu/test_streamk.py tests/gpu/test_gemm_none.py tests/gpu/test_errors.py > $R/t.txt 2>&1
echo "rc=$?"; tail -3 $R/t.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
