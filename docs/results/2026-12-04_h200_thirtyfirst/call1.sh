#!/bin/bash
# call 1 (thirty-first session, one H200): streamk buffers per stream (allocated outside any
# capture): the streamk GPU tests first (two streams at once, more streams than sets, a graph of
# forked streams, a set made in a capture outliving its graph, a time-out provoked in the kernel),
# then every GPU test and the fuzzer (tools/device_check.sh).
source tools/device_env.sh cache_gpu || exit $?
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
timeout 200 python3 -m pytest -m gpu -q -rf tests/gpu/test_streamk.py > $R/streamk.txt 2>&1
echo "streamk rc=$?"; tail -5 $R/streamk.txt | cut -c1-400
grep -E "^(FAILED|ERROR)|Error|assert" $R/streamk.txt | head -20 | cut -c1-300
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$?"; tail -4 $R/dc.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
