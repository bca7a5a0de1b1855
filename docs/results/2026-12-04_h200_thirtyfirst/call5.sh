#!/bin/bash
# call 5 (thirty-first session, one H200): (1) which first-call steps a global-mode capture
# refuses without driver.capture_relaxed (tools/probes/capture_calls.py); (2) issue 9's mode-none
# table on HEAD (N 7168, K 768 / 1536 / 2304, M 16..512, warm and cold weights, the dispatch
# against torch.mm); (3) every GPU test and the fuzzer on HEAD (tools/device_check.sh).
source tools/device_env.sh cache_gpu || exit $?
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
timeout 60 python3 tools/probes/capture_calls.py > $R/capture_calls.txt 2>&1
echo "capture_calls rc=$?"; cut -c1-300 $R/capture_calls.txt | tail -6
timeout 240 python3 tools/bench_decode.py --dispatch-only --both-regimes --rounds 3 --n 7168 \
  --ks 768,1536,2304 --ms 16,32,64,128,256,384,512 --json $R/decode.json > $R/decode.txt 2>&1
echo "decode rc=$?"; tail -30 $R/decode.txt | cut -c1-200
bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$?"; tail -4 $R/dc.txt | cut -c1-300
cd $OUT && tar czf r.tgz r && rm -rf r
