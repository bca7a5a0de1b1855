#!/bin/bash
# call 2 (fifteenth session, one H200): splitkw with token tile 128 only (64 dropped after call
# 1) and the fitted rule (dispatch.choose_none_splitkw: pairs fit one wave of clusters, K >= 32
# / 64 k-tiles). A: every GPU test + 40 s fuzz; B: the same with PDL on; C: the rule held out at
# 12 shapes it was not fitted to (7 random, 5 picked near its bounds: pairs 65..75, K 24..40
# k-tiles) x M 520..1800: torch.mm, the op's dispatch, the rule before splitkw (nosplitkw),
# splitkw fixed with clusters of 2 and 4 (warm weight, 3 rounds).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
python3 -c "
from codegen.runtime import GemmRsAr
op = GemmRsAr(4096, 704, 8192, 'none'); print('splitkw slots', op.splitkw_slots(), 'splitk slots', op.splitk_slots())" > $R/slots.txt 2>&1; cat $R/slots.txt
timeout 170 bash tools/device_check.sh --fuzz-s 40 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
echo "A $(( $(date +%s)-T0 ))s"
timeout 170 bash tools/device_check.sh --pdl --fuzz-s 40 --out $R/dcpdl > $R/dcpdl.txt 2>&1; tail -3 $R/dcpdl.txt
grep -E "^FAILED" <(zcat -f $R/dcpdl/gpu_tests.log) | head -20
echo "B $(( $(date +%s)-T0 ))s"
timeout 200 python3 tools/probes/choice_ab.py \
  --shapes 1152:13336,448:5192,384:14464,1160:14344,1600:13184,1792:6816,1920:5024,640:2560,832:1984,512:1536,2560:2304,3072:12656 \
  --ms 520,700,900,1200,1800 --rounds 3 \
  --rules dispatch,nosplitkw,splitkw128c2,splitkw128c4 \
  --json $R/probe.json > $R/probe.txt 2>&1
tail -62 $R/probe.txt | cut -c1-230
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc $R/dcpdl 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
