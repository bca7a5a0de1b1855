#!/bin/bash
# call 3 (thirteenth session, one H200): the input / call-pattern checks merged from `robust`
# (1de4e8e: a lock per group around every launch section, freed storage / negated views / sparse /
# autograd refused, sm_budget within the group's share, ...) and the should_run fix for fixed
# decode schedules; the kernels are call 2's (cache_gpu + cache_rag, merged into cache_all).
# (A) host time per eager call, old runtime (cache_oldrt = 1de4e8e^1's codegen/) against new,
#     alternating old new new old (host_ab.py: mode none from pools, rs run_all on two virtual
#     ranks, torch.mm in the same process). Prediction (CPU stand-in): +0.4..+0.8 us per call;
# (B) mode none past the decode rows at small N: would the decode schedules (splitk, the wide
#     kernel) beat the tile schedule at M 513..1024 if they were allowed past 512 rows?
#     (choice_ab --decode-rows 1024, probe only; call 2: the tile schedule 0.49x-0.92x torch.mm);
# (C) every GPU test (incl. the new test_group_threads, the ragged tests with the should_run
#     fix) and 45 s of fuzz (device_check.sh).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
H=docs/results/2026-12-01_h200_thirteenth/host_ab.py
for s in old1 new1 new2 old2; do
  case $s in old*) P=cache_oldrt ;; *) P=. ;; esac
  PYTHONPATH=$P timeout 60 python3 $H $s $R/host_$s.json > $R/host_$s.txt 2>&1
  echo "$s rc=$? $(cut -c1-160 $R/host_$s.txt | tail -2)"
done
echo "A $(( $(date +%s)-T0 ))s"
export PYTHONPATH=.
timeout 150 python3 tools/probes/choice_ab.py --decode-rows 1024 \
  --shapes 704:8192,1088:2048,2048:8192,4544:4544 --ms 513,640,768,1024 \
  --rules dispatch,splitk64c4,splitk128c4,splitk128c2,swapab128c2,swapab256c2 --rounds 3 \
  --json $R/past512.json 2>&1 | grep "^N=" | cut -c1-240
echo "B $(( $(date +%s)-T0 ))s"
bash tools/device_check.sh --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
