#!/bin/bash
# call 3 (eleventh session, one H200): the tile widths 160 / 192 (mode none, sm_90a) in the
# dispatcher, against the rules without them, then the GPU tests and the fuzz.
# (a) M <= 512: every point of N 1024..16384 x M 16..512 where the fill rule's pick moves
#     (N 5120 M 496..512 -> tile 160 cg2; N 8640..10560 M 240..256 -> tile 160 cg1; N 10560 M
#     464..512): `dispatch` against `fillk-bns` (the same rule over BNS).
# (b) M > 512, held out: 12 random (N, K, M) (seed 20261215) where choose_bn's pick moves,
#     `dispatch` against `rules` (choose_bn over BNS); 4 more whose N no old width divides (the
#     op refused them past 512 rows): dispatch against torch.mm only.
# (c) tests/gpu (device_check.sh: every GPU test, incl. the new extra-width ones) and 60 s fuzz.
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 PYTHONPATH=. CODEGEN_WAIT_TIMEOUT_MS=5000
export CODEGEN_CACHE_DIR=cache_gpu
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
ab() {  # name shapes ms rules
  timeout 120 python3 tools/probes/choice_ab.py --shapes $2 --ms $3 \
    --rules $4 --both-regimes --rounds 3 --json $R/$1.json 2>&1 | grep "^N=" | cut -c1-200
}
ab small1 9600:4096,10240:2048 240,256 dispatch,fillk-bns
ab small2 8640:8192 240 dispatch,fillk-bns
ab small3 10560:8192,5120:4096 480,512 dispatch,fillk-bns
echo "small $(( $(date +%s)-T0 ))s"
i=0
for P in 7296:4672@6023 14592:6976@7414 4224:4544@2690 12672:1728@1500 12800:4352@936 \
         5760:3672@1447 14976:4736@861 12160:5888@1814 2688:3768@4431 15360:2712@1395 \
         3200:960@6496 4224:8064@6309; do
  i=$((i+1)); ab big$i ${P%@*} ${P#*@} dispatch,rules
done
echo "big $(( $(date +%s)-T0 ))s"
for P in 3648:1024@4744 13248:6272@3620 15040:4848@1376 6336:1536@2320 2880:2880@1024,4096; do
  i=$((i+1)); ab new$i ${P%@*} ${P#*@} dispatch
done
echo "new $(( $(date +%s)-T0 ))s"
bash tools/device_check.sh --fuzz-s 60 --out $R/dc > $R/dc.txt 2>&1; tail -6 $R/dc.txt
echo "dc $(( $(date +%s)-T0 ))s"
gzip -r $R/dc 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
