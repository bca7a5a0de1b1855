#!/bin/bash
# call 1 (fifteenth session, one H200): the splitkw schedule (mode none, sm_90a: the wide decode
# kernel's 128-row W tile with K split over a cluster of 2 / 4, any M). A: its GPU tests first;
# B: every GPU test + 40 s of fuzz (HEAD's runtime incl. 520096e, never GPU-run before); C: the
# probe: torch.mm, the op's dispatch and fixed choices (tile 128/192/256 cta_group 2, splitkw
# 64/128 x 2/4) past the decode rows at small / medium N and long K (warm weight, 3 rounds).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 100 python3 -m pytest -m gpu tests/gpu/test_splitkw.py -q -x > $R/a_splitkw.txt 2>&1
tail -15 $R/a_splitkw.txt
echo "A $(( $(date +%s)-T0 ))s"
timeout 200 bash tools/device_check.sh --fuzz-s 40 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
grep -E "FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "B $(( $(date +%s)-T0 ))s"
timeout 250 python3 tools/probes/choice_ab.py \
  --shapes 704:8192,1280:8192,1088:2048,2048:8192,768:4096,1024:14336,4544:4544,3584:4096,7168:2304 \
  --ms 513,768,1024,1536,2048,4096 --rounds 3 \
  --rules dispatch,tile128c2,tile192c2,tile256c2,splitkw128c2,splitkw128c4,splitkw64c2,splitkw64c4 \
  --json $R/probe.json > $R/probe.txt 2>&1
tail -60 $R/probe.txt
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
