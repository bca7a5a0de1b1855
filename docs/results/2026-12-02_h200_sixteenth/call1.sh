#!/bin/bash
# call 1 (sixteenth session, one H200): the splitk / splitkw handoff with its DSMEM loads batched
# (templates/splitk_handoff.j2: each batch's ld.shared::cluster issued before its sums and sT
# stores; before, one cluster round trip per 16-byte vector, 8 in a row at splitkw's token tile
# 128). A: every GPU test + 30 s fuzz on the new kernels (cache_gpu, built from the working
# tree). B / C: new (cache_gpu) against old (cache_old: HEAD fb4592a's splitk / splitkw kernels)
# in alternation (A B B A), the fixed splitkw / splitk kernels, warm weight, 3 rounds each.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 190 python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/abkw \
  --reps 2 --timeout 45 -- python3 tools/probes/choice_ab.py \
  --shapes 704:8192,1320:4104,576:3120,1000:8192,1800:6000 --ms 16,256,513,1024 --rounds 3 \
  --rules splitkw128c2,splitkw128c4 --json {json}
echo "B $(( $(date +%s)-T0 ))s"
timeout 190 python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/abk \
  --reps 2 --timeout 45 -- python3 tools/probes/choice_ab.py \
  --shapes 2048:8192,1024:14336,3072:6144 --ms 16,64,128,192,256,512 --rounds 3 \
  --rules splitk-c2,splitk-c4,splitk128c2 --json {json}
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
