#!/bin/bash
# call 7 (thirty-first session, one H200): call 6's failing test (a lone rank's call captured:
# it failed inside the capture, and the next test's MemPool aborted the process) replaced by an
# epoch skew after capturing run_all; the probe that shows why the lone rank's capture failed;
# the changed tests, then every GPU test + fuzz.
source tools/device_env.sh cache_gpu || exit $?
timeout 60 python3 tools/probes/capture_rank_call.py > $R/probe.txt 2>&1
echo "probe rc=$?"; grep -v "^\s*$" $R/probe.txt | tail -14 | cut -c1-300
timeout 200 python3 -m pytest -m gpu -q -rf tests/gpu/test_errors.py tests/gpu/test_streamk.py tests/gpu/test_cold_capture.py tests/gpu/test_torch_ops_gpu.py > $R/t.txt 2>&1
echo "rc=$?"; tail -3 $R/t.txt | cut -c1-300
grep -E "^E  " $R/t.txt | head -12 | cut -c1-300
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$?"; tail -4 $R/dc.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
