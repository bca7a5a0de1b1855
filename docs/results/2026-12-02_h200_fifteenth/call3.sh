#!/bin/bash
# call 3 (fifteenth session, one H200): the splitkw rule's K bounds lowered after call 2 (clusters
# of 2 from 24 k-tiles, of 4 from 40): A: every GPU test + 30 s fuzz on the final runtime; B: the
# bounds held out at 11 new shapes (8 random N 512..1600 x K 1032..3824, 3 picked at 18..25
# k-tiles) x M 530..1400: torch.mm, dispatch, the rule before splitkw, splitkw c2 / c4; C: mode
# none at N no multiple of 64 (fourteenth session: correct, never timed) against torch.mm.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 170 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 200 python3 tools/probes/choice_ab.py \
  --shapes 576:3120,528:3480,1592:3368,1440:3032,1536:1032,1600:2200,512:3824,1320:1880,896:1280,704:1600,1024:1152 \
  --ms 530,750,1000,1400 --rounds 3 \
  --rules dispatch,nosplitkw,splitkw128c2,splitkw128c4 \
  --json $R/probe.json > $R/probe.txt 2>&1
tail -46 $R/probe.txt | cut -c1-200
echo "B $(( $(date +%s)-T0 ))s"
timeout 120 python3 tools/probes/choice_ab.py \
  --shapes 4000:4096,1000:8192,7176:4096,24:4096,2888:2880 \
  --ms 16,64,256,512,1024,4096 --rounds 3 --rules dispatch \
  --json $R/probe_n8.json > $R/probe_n8.txt 2>&1
tail -32 $R/probe_n8.txt | cut -c1-200
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
