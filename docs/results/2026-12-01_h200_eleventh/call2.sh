#!/bin/bash
# call 2 (eleventh session, one H200): prototype tile widths 160 and 192 for mode none (sm_90a;
# contract.TILE_EXTRA_BNS, interleaved deferred stores kept to BN 224/256 since ptxas serialized
# every WGMMA of 160/192 with them). Where N / 160 or N / 192 row tiles fill the 132 SMs in one
# wave (N 5120 M 512: 4 x 32 = 128 CTAs; N 6144 / 192 = 32; N 3072 / 192 = 16 at M 1024) they
# may beat the decode kernels' 120-CTA / 12%-padded picks (call 1: 0.90x torch.mm). Every path
# checked against an fp32 reference first (choice_ab), warm and cold weights.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
T=tile160c1,tile160c2,tile192c1,tile192c2
run() {  # name shapes ms rules
  timeout 200 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep -v "^ *$" | tail -12 | cut -c1-250
  echo "$1 $(( $(date +%s)-T0 ))s"
}
run d5120 5120:2560,5120:6912,5120:13824 384,512 dispatch,cands,$T
run l5120 5120:2560,5120:13824 1024,2048 dispatch,cands,tile160c1,tile160c2
run d6144 6144:4096,3072:8192 512,1024 dispatch,cands,tile192c1,tile192c2
run d2880 2880:2880 512,1024 dispatch,cands,$T
cd $OUT && tar czf r.tgz r && rm -rf r
