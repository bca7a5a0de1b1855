#!/bin/bash
# call 1 (2026-12-01, ninth session, one H200): (a) every GPU test + 60 s of fuzz on the kernels
# of HEAD (the eighth session's last two commits ran on the CPU only) plus the new stream-K
# kernels (tests/gpu/test_streamk.py); (b) stream-K against the dispatch and torch.mm, mode
# none, warm and cold weights, 3 rounds: the weak model points (N 5120, M 64..128) and around.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 100 python3 -m pytest -q -m gpu tests/gpu/test_streamk.py > $R/t_streamk.log 2>&1
echo "streamk tests rc=$?: $(tail -1 $R/t_streamk.log) $(( $(date +%s)-T0 ))s"
grep -E "^E |FAILED" $R/t_streamk.log | head -12
for SPEC in 5120:2560/16,64,128,256 5120:3456/64,128 3584:2368/1,64,128 7168:2304/16,64,128 6144:2048/64,128 4096:1536/64,128 8192:3696/64,128 2880:2880/16,64,128; do
  NK=${SPEC%/*}; MS=${SPEC#*/}; N=${NK%:*}; K=${NK#*:}
  [ $(( $(date +%s)-T0 )) -lt 260 ] || break
  timeout 100 python3 tools/probes/choice_ab.py --shapes $NK --ms $MS --rules dispatch,streamk \
    --both-regimes --rounds 3 --json $R/c_${N}_${K}.json > $R/c_${N}_${K}.txt 2>&1
  echo "N=$N K=$K rc=$? $(( $(date +%s)-T0 ))s"; cut -c1-150 $R/c_${N}_${K}.txt | tail -n +1
done
bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1
echo "device_check rc=$? $(( $(date +%s)-T0 ))s"; cat $R/dc.txt | tail -6
gzip -9 $R/*.log $R/dc/*.log 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
