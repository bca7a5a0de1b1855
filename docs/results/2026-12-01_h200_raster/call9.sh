#!/bin/bash
# call 9 (2026-12-01, one H200): ncu of the dispatched mode none kernel and torch.mm (cuBLAS) at
# the lowest decode points of calls 5/7 (K = 2304, M = 176, 352, 384, 512): kernel or gap?
export PYTHONUNBUFFERED=1 PYTHONPATH=.
D=docs/results/2026-12-01_h200_raster
R=$OUT/r; mkdir -p $R
for M in 176 352 384 512; do
  timeout 60 ncu --clock-control none --cache-control all \
    -k regex:"nvjet|gemm|xmma" --metrics dram__bytes_read.sum,gpu__time_duration.sum,launch__grid_size,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 $D/ncu_none.py $M 2304 --with-torch > $R/ncu_$M.txt 2>&1
  echo "M=$M done"
done
cd $OUT && tar czf r.tgz r && rm -rf r
