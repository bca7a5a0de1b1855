#!/bin/bash
# call 9 (fifteenth session, one H200): after the final simplify (d60c02c: host-only; the splitkw
# rules and defaults equal to the old code over 184,320 CPU cases): the splitk / splitkw / ragged-N
# GPU tests and 20 s of fuzz.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
export CODEGEN_CACHE_DIR=cache_gpu
timeout 150 python3 -m pytest -m gpu tests/gpu/test_splitk.py tests/gpu/test_splitkw.py \
  tests/gpu/test_ragged_n.py -q > $R/t.txt 2>&1
tail -2 $R/t.txt; grep -E "^FAILED" $R/t.txt
timeout 60 python3 tools/fuzz_gpu.py --cases 100000 --budget-s 20 > $R/fuzz.txt 2>&1; tail -1 $R/fuzz.txt
cd $OUT && tar czf r.tgz r && rm -rf r
