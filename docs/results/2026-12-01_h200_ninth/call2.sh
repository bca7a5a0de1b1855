#!/bin/bash
# call 2 (2026-12-01, ninth session, one H200): call 1 found the stream-K kernels 0.47x-0.80x
# torch.mm where the dispatch's kernels run 0.77x-1.16x. Where does the time go? The same
# shapes on grids that give every CTA whole tiles (no fix-up: budget = W tiles, or a divisor)
# against grids that split tiles (tools/probes/streamk_budget.py).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
python3 tools/probes/streamk_budget.py --shapes 5120:2560 --ms 16,128 --budgets 40,80,100,120,0 --json $R/b_5120.json
python3 tools/probes/streamk_budget.py --shapes 2880:2880 --ms 16,128 --budgets 45,90,0 --json $R/b_2880.json
python3 tools/probes/streamk_budget.py --shapes 7168:2304 --ms 64 --budgets 56,112,0 --json $R/b_7168.json
cd $OUT && tar czf r.tgz r && rm -rf r
