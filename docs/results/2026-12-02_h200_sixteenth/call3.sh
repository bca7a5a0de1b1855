#!/bin/bash
# call 3 (sixteenth session, one H200): the final code (splitk past N, the batched handoff, the
# review's shape / timeout / copy checks). A: every GPU test + 30 s fuzz. B: the ragged-N rule
# held out at 6 new shapes (4 where choose_splitk now has a choice, 2 with more than 64 W tiles
# where nothing should move), warm and cold weight: torch.mm, the op's dispatch, the rule
# before (noraggedsplitk), 3 rounds.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 200 python3 tools/probes/choice_ab.py \
  --shapes 1160:7000,2760:4096,520:9216,3320:3584,5000:6144,7392:8192 \
  --ms 1,16,48,100,160,256 --rounds 3 --both-regimes \
  --rules dispatch,noraggedsplitk \
  --json $R/probe.json > $R/probe.txt 2>&1
tail -40 $R/probe.txt | cut -c1-250
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
