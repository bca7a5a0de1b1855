#!/bin/bash
# call 8 (thirty-first session, one H200): op.join during a capture waits only for the rank
# streams in the capture (call 7's probe: a lone rank's capture raised
# cudaErrorStreamCaptureIsolation in join): the probe again, the error tests (the lone rank's
# capture and its replay's time-out seen by check_all_errors), then every GPU test + fuzz.
source tools/device_env.sh cache_gpu || exit $?
timeout 60 python3 tools/probes/capture_rank_call.py > $R/probe.txt 2>&1
echo "probe rc=$?"; grep -E "captured|raised|Error" $R/probe.txt | head -6 | cut -c1-300
timeout 100 python3 -m pytest -m gpu -q -rf tests/gpu/test_errors.py > $R/t.txt 2>&1
echo "rc=$?"; tail -2 $R/t.txt | cut -c1-300
grep -E "^E  " $R/t.txt | head -12 | cut -c1-300
bash tools/device_check.sh --fuzz-s 15 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$?"; tail -4 $R/dc.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
