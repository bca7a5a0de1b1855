#!/bin/bash
# call 6 (thirty-first session, one H200), after a helper's audit of call patterns: streamk
# launches captured into a graph take capture sets (never an eager stream's), plans and streamk
# buffers built under the op's device guard, check_all_errors (a time-out inside a graph replay
# seen without an op call), errors naming the group's last kernel; then every GPU test + fuzz.
source tools/device_env.sh cache_gpu || exit $?
timeout 200 python3 -m pytest -m gpu -q -rf tests/gpu/test_streamk.py tests/gpu/test_cold_capture.py tests/gpu/test_errors.py tests/gpu/test_torch_ops_gpu.py > $R/t.txt 2>&1
echo "rc=$?"; tail -3 $R/t.txt | cut -c1-300
grep -E "^E  " $R/t.txt | head -12 | cut -c1-300
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$?"; tail -4 $R/dc.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
