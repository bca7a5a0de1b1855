#!/bin/bash
# call 2 (thirteenth session, one H200): mode none's tile kernels with their last N tile past N
# (contract.tile_ragged_n, sm_90a), so any N a multiple of 64 is served at every M.
# Build (CPU): cache_gpu = 822d154's kernels (call 1); cache_rag = the 10 rebuilt mode-none tile
# kernels (codegen build --tp 2 --arch sm_90a --mode none --schedule tile), both stripped to
# cubins, merged here into cache_all (cache_rag's manifest is the newer one).
# (A) the ragged / mode-none GPU tests (test_none_tile_past_n: widths 128..256 x cta_group 1/2 at
#     N 64 / 704 / 4544 / 2880, M 1..4096 up and down, graph replay; the dispatcher at N 704 /
#     4544 / 1088 M 256..8192);
# (B) no regression where the width divides N: old (cache_gpu) against new (cache_all) tile
#     kernels, tools/ab_time.py A B B A; prediction 1.00 +- 0.01 (the only change is
#     ceil(N / BN) for floor in the tile count);
# (C) the ragged N against torch.mm past the decode rows: the dispatch and fixed widths at N
#     704 / 1088 / 4544 and, for reference, N 2880 at widths 128 / 256 reaching past N against
#     the dispatch's 160 / 192 dividing it. Prediction: 0.85x-1.0x torch.mm (one partial N tile
#     per row block wastes up to BN - 64 columns: 1088 at BN 128 wastes 5%, 704 9%);
# (D) every GPU test and 45 s of fuzz (device_check.sh; the fuzz now draws mode none's ragged
#     tiles past the decode rows).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
rm -rf cache_all && cp -r cache_gpu cache_all && cp -r cache_rag/sm_90a/* cache_all/sm_90a/ \
  && cp cache_rag/manifests/* cache_all/manifests/
export CODEGEN_CACHE_DIR=cache_all
timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py tests/gpu/test_gemm_none.py \
  > $R/tests.txt 2>&1; tail -3 $R/tests.txt
echo "A $(( $(date +%s)-T0 ))s"
timeout 170 python3 tools/ab_time.py --side old=cache_gpu --side new=cache_all --out $R/ab --reps 2 --timeout 40 -- \
  python3 tools/probes/choice_ab.py --shapes 7168:2304,4096:4096 --ms 1024,4096 \
  --rules tile128c2,tile256c2 --rounds 3 --json {json} > $R/ab.txt 2>&1
tail -6 $R/ab.txt
echo "B $(( $(date +%s)-T0 ))s"
ab() {  # name shapes ms rules
  timeout 130 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-230
}
ab ragged 704:8192,1088:2048,4544:4544,4544:18176 513,1024,2048,4096,8192 dispatch,tile128c2,tile192c2,tile256c2
ab ref2880 2880:4096 1024,4096,8192 dispatch,tile128c2,tile256c2
echo "C $(( $(date +%s)-T0 ))s"
bash tools/device_check.sh --fuzz-s 45 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "D $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
