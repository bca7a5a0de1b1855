#!/bin/bash
# For the next session on one H200 (written 2026-12-02, seventeenth session; NOT run). First:
# every GPU test + fuzz on HEAD (the tile-width rule of call 8 and the edited N 2880 GPU test
# never ran on the GPU). Then the boundary between splitkw and the tile schedule, which call 6
# judged against the tile schedule's old width: splitkw clusters of 2 at 22..29 k-tiles and the
# tile schedule at its new width (the op's dispatch with splitkw disabled: `nosplitkw`), M 513..
# 1024, N 800..1600, worse of warm and cold. Build cache_gpu from HEAD first (see the
# sixteenth / seventeenth session READMEs), carry it, run:
#   bash docs/results/2026-12-02_h200_seventeenth/next_h200.sh
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
timeout 200 bash tools/device_check.sh --fuzz-s 30 --out $R/dc > $R/dc.txt 2>&1; tail -3 $R/dc.txt
grep -E "^FAILED" <(zcat -f $R/dc/gpu_tests.log) | head -20
timeout 120 python3 tools/probes/choice_ab.py --rounds 3 --both-regimes \
  --rules dispatch,nosplitkw,splitkw128c2 \
  --shapes 1512:1432,1192:1368,1000:1368,800:1360,1400:1800,1600:1600,1088:1856 \
  --ms 513,640,768,900,1024 --json $R/kw_tile.json > $R/kw_tile.txt 2>&1
tail -8 $R/kw_tile.txt | cut -c1-200
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
