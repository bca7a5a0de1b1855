#!/bin/bash
# call 2 (2026-12-01, sixth session, one H200): the token tile 256 wide kernel with its last
# epilogue pass clipped to the tile (call 1: its third pass of 88 tokens reached 8 rows into the
# next token tile and overwrote them); the decode GPU tests again, old against new for 256
# (A B B A), then ncu of the compute-bound points where every kernel we have is below torch.mm
# (N 12544 K 8192 M 382; N 5888 K 13312 M 425): the candidates and cuBLAS side by side.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
D=docs/results/2026-12-01_h200_epi
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_swapab.py tests/gpu/test_gemm_none.py \
  > $R/t_decode.log 2>&1
echo "decode tests rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/t_decode.log)"
grep -E "^E |FAILED" $R/t_decode.log | head -8
python3 tools/ab_time.py --side new=cache_gpu --side old=cache_old --out $R/ab --reps 2 \
  --timeout 60 -- python3 tools/probes/choice_ab.py \
  --shapes 7168:768,7168:2304,5888:13312,12032:11264,9344:3328,6016:3456 --ms 232,400,512 \
  --rules swapab256c2 --both-regimes --rounds 3 --json {json}
grep -h "N=" $R/ab/*.txt | cut -c1-160
echo "ab done $(( $(date +%s)-T0 ))s"
M="gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
M="$M,sm__cycles_elapsed.avg.per_second,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
M="$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__bytes_read.sum"
M="$M,lts__t_bytes.sum.per_second,launch__grid_size,sm__throughput.avg.pct_of_peak_sustained_elapsed"
M="$M,sm__warps_active.avg.pct_of_peak_sustained_active"
for P in "12544 8192 382 swapab112c2,swapab96c2,swapab192c2,tile128c2" \
         "5888 13312 425 tile256c2,swapab224c2,swapab96c2,tile128c1"; do
  set -- $P
  timeout 150 ncu --clock-control none --cache-control all --section WarpStateStats --metrics $M \
    -k regex:"nvjet|gemm|xmma|cutlass" python3 $D/ncu_fixed.py $P > $R/ncu_$1_$3.txt 2>&1
  echo "ncu N=$1 rc=$? $(( $(date +%s)-T0 ))s"; grep -E "relerr" $R/ncu_$1_$3.txt
done
cd $OUT && tar czf r.tgz r && rm -rf r
