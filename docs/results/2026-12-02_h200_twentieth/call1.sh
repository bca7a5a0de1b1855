#!/bin/bash
# Twentieth session, call 1: every GPU test + fuzz on HEAD (1d75fc6; the GPU last ran 510e041);
# a fresh survey of mode none's dispatch against torch.mm at 20 random shapes (seed 20261203,
# N 256..16384, K 512..16384, multiples of 8) x M 1..4096; every candidate at 8 shapes with long
# K (seed 2026120302, N 1024..16384, K 4000..16384) x M 64 / 200 / 300 (the classes the
# eighteenth session left weak: where is the kernel the limit?).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 bash tools/device_check.sh --fuzz-s 20 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
timeout 180 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch \
  --shapes 14680:2568,984:15184,3120:5592,4696:5576,1656:9416,14936:6464,2392:14424,1784:10888,9040:7480,15128:7736,11560:12648,11408:2976,12536:7440,5280:3376,9384:4920,9464:7736,8856:2664,10760:6960,832:6968,12768:8984 \
  --ms 1,16,64,160,320,640,1536,4096 --json $R/survey.json > $R/survey.txt 2>&1
tail -3 $R/survey.txt | cut -c1-200
timeout 190 python3 tools/probes/choice_ab.py --rounds 2 --both-regimes --rules dispatch,cands \
  --shapes 6416:12120,2976:16160,14560:11408,2320:5056,9384:14432,6744:16272,6056:15696,4608:6488 \
  --ms 64,200,300 --json $R/cands.json > $R/cands.txt 2>&1
tail -3 $R/cands.txt | cut -c1-200
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
