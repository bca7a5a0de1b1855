#!/bin/bash
# Twentieth session, call 2: every GPU test + fuzz with the L2-traffic model of rows off the
# 128-byte lines (dispatch.choose_none_unaligned); that model held out against the rule before it
# (`fill19`) at 24 fresh random shapes with K % 64 != 0 (seed 2026120320, N 256..16384, K
# 512..16384) x M 21 / 58 / 97 / 141 / 203 / 266 / 331 / 419 (79 of the 192 points move).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
MS=21,58,97,141,203,266,331,419
timeout 175 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,fill19 \
  --shapes 9784:10216,7048:15656,4456:9816,11040:13264,5408:12304,16096:14304,648:15000,8424:1288,4200:6744,3936:11384,5912:4328,15096:9520 \
  --ms $MS --json $R/h1.json > $R/h1.txt 2>&1
tail -2 $R/h1.txt | cut -c1-200
timeout 175 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,fill19 \
  --shapes 1520:5040,672:11488,3296:9400,744:10144,12960:8744,14992:13640,408:13344,8296:6128,7016:16088,1128:13288,10536:5384,12736:10552 \
  --ms $MS --json $R/h2.json > $R/h2.txt 2>&1
tail -2 $R/h2.txt | cut -c1-200
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
