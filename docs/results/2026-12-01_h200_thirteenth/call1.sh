#!/bin/bash
# call 1 (thirteenth session, one H200): rs/ar's tile kernels at widths 160 / 192 (sm_90a;
# contract.TILE_EXTRA_BNS), so N 2880 (gpt-oss) is served past the decode rows (before: the op
# refused M > 512 there and the serving layer fell back to torch.mm + NCCL).
# Build (CPU): cache_gpu = this tree's kernels (codegen build --tp 2,4,8 --arch sm_90a
# --transport unicast; the third session's tuning tables copied in), stripped to cubins.
# (A) the new / changed GPU tests (test_ragged_n: widths 160 / 192 at TP 2/4/8, both cta_groups,
#     N 2880 / 5760, M 1..4096 up and down, first output kept, graph replay; N 2880 dispatched);
# (B) two virtual ranks, N 2880: the widths and cta_groups against each other and the default
#     (which one the rule should pick), and N 2944 (= 23 x 128) at BN 128 as the per-column
#     reference of the BNS kernels (prediction: 160 / 192 within 5% of 128's us per column;
#     virtual ranks: the exchange runs in one GPU's memory, not over NVLink);
# (C) every GPU test and 60 s of fuzz (device_check.sh).
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
timeout 240 python3 -m pytest -q -m gpu tests/gpu/test_ragged_n.py -x > $R/ragged.txt 2>&1; tail -3 $R/ragged.txt
echo "A $(( $(date +%s)-T0 ))s"
timeout 150 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 --shapes 2880:1536,2880:4096 \
  --ms 1024,2048,4096,8192 --choices default,tile160c1,tile160c2,tile192c1,tile192c2 --rounds 3 \
  --json $R/w2880.json > $R/w2880.txt 2>&1; tail -20 $R/w2880.txt | cut -c1-200
timeout 90 python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 --shapes 2944:1536,2944:4096 \
  --ms 1024,2048,4096,8192 --choices default,tile128c1,tile128c2 --rounds 3 \
  --json $R/w2944.json > $R/w2944.txt 2>&1; tail -20 $R/w2944.txt | cut -c1-200
echo "B $(( $(date +%s)-T0 ))s"
bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1; tail -4 $R/dc.txt
echo "C $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
