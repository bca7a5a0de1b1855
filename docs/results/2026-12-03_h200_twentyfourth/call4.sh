#!/bin/bash
# call 4 (twenty-fourth session, one H200): mode none at the twenty-third session's 13 model
# shapes (row-parallel layers of Llama-3 8B / 70B / 405B, Qwen2.5 32B / 72B, Mistral Large 2 at
# their TP) x M 16 / 32 / 48 / 64 / 128 / 256 / 384 / 512 with this session's two rules (splitk
# below 32 k-tiles at N 3648..4096, the fill rule's tile options on aligned rows), dispatch only,
# worse of warm and cold (A); 90 s more fuzz on the final code (B).
# Prediction: >= 0.9x torch.mm at 90% of the points (the twenty-third session: 72 of 78 at
# M 16..512 without 48 / 384); N 4096 K 1792 M 32 ~1.0x (0.89x before), N 16384 K 2048 M 256 /
# 512 +3-5%.
source tools/device_env.sh cache_gpu || exit $?
T0=$(date +%s)
for NK in 4096:512,1792,2048,7168 5120:1280,6912 8192:1024,3584,3696 12288:1536,3584 16384:2048,6656; do
  N=${NK%%:*}; KS=${NK#*:}
  timeout 80 python3 tools/bench_decode.py --dispatch-only --both-regimes --n $N --ks $KS \
    --ms 16,32,48,64,128,256,384,512 --json $R/none_n$N.json > $R/none_n$N.txt 2>&1
  grep -v "^ *K " $R/none_n$N.txt | awk -v n=$N '{print "N" n, $0}' | cut -c1-170
done
echo "A $(( $(date +%s)-T0 ))s"
timeout 110 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 90 --json $R/fuzz.json > $R/fuzz.txt 2>&1; echo "rc=$?"; tail -1 $R/fuzz.txt
echo "B $(( $(date +%s)-T0 ))s"
cd $OUT && tar czf r.tgz r && rm -rf r
