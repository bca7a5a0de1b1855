#!/bin/bash
# call 3 (fourteenth session, one H200): the review mend. A second reader over the change found
# no kernel bug; the GPU tests now also check that nothing lands past the output's end (each out
# is the first rows of a NaN tensor one row longer: a store past N on the last row would land in
# that guard row) and run rs/ar's tiles at N 64 (one N tile, mostly past N). Kernels rebuilt
# (a docstring in comm_phase.py.j2 changed their source; code unchanged since call 2).
# (A) every GPU test and 60 s of fuzz with programmatic dependent launch on (device_check.sh --pdl);
# (B) what reaching past N costs per output column: N 4544 (no width divides it: the rule's
#     width, the last N tile 64 columns past N) against N 4608 (= 36 x 128: a dividing width), two
#     virtual ranks, K 4096. Prediction: N 4544 within 3% of N 4608's time x 4544 / 4608.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
export CODEGEN_CACHE_DIR=cache_gpu
timeout 330 bash tools/device_check.sh --pdl --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "A $(( $(date +%s)-T0 ))s"
timeout 90 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \
  --shapes 4544:4096,4608:4096 --ms 1024,2048,8192 --choices default,tile128c2,tile256c2 --rounds 3 \
  --json $R/percol.json > $R/percol.txt 2>&1; tail -12 $R/percol.txt | cut -c1-200
echo "B $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
