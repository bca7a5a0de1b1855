#!/bin/bash
# call 4 (thirty-first session, one H200): an op's first call inside a CUDA-graph capture (kernel
# load with the capture mode relaxed, plan, streamk buffers made in the capture), mode none and
# rs/ar on virtual ranks; then the streamk, graph and lifetime GPU tests again.
source tools/device_env.sh cache_gpu || exit $?
timeout 200 python3 -m pytest -m gpu -q -rf tests/gpu/test_cold_capture.py > $R/cold.txt 2>&1
echo "cold rc=$?"; tail -4 $R/cold.txt | cut -c1-400
grep -E "^E  |Error" $R/cold.txt | head -12 | cut -c1-300
timeout 200 python3 -m pytest -m gpu -q -rf tests/gpu/test_streamk.py tests/gpu/test_lifetime_graph.py tests/gpu/test_torch_ops_gpu.py > $R/t.txt 2>&1
echo "rc=$?"; tail -3 $R/t.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
