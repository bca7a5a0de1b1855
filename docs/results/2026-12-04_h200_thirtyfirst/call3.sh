#!/bin/bash
# call 3 (thirty-first session, one H200): the in-kernel streamk time-out again, at K = 131072
# (a CTA's share ~5 ms) and a 1 ms bound (call 2: K 8192 and 5 ms, the wait was met in time);
# then every GPU test and the fuzzer (tools/device_check.sh).
source tools/device_env.sh cache_gpu || exit $?
timeout 120 python3 -m pytest -m gpu -q -rf -s tests/gpu/test_streamk.py -k "time_out" > $R/one.txt 2>&1
echo "one rc=$?"; grep -E "record|passed|failed" $R/one.txt | tail -5 | cut -c1-400
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$?"; tail -4 $R/dc.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
