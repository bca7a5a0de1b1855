#!/bin/bash
# For the next session lent nvidia-h200-x2 (written 2026-12-01, fifth session; NOT run; still
# the plan after the sixth session, whose `check` now also runs the wide rs/ar decode kernels of
# token tile 256, which store their tile in passes since then and never ran across GPUs:
# tests/multigpu/run_correctness.py's fixed cases). Eighth session: its fuzz cases now also
# draw K no multiple of 64 and pass x / W as row-strided views (a quarter of the cases each;
# neither has run across GPUs yet). Ninth session: `decode` added (issue 9's target table);
# still not run (no x2 lent). Twelfth session: `ragged` added (rs/ar's wide decode kernel past N,
# N 2880: correct on virtual ranks, mixed there, taken by no rule: does it pay on the link?);
# `check`'s fuzz now draws it too. Thirteenth session: `ragged` also times rs/ar's new tile
# widths 160 / 192 at N 2880 past the decode rows (fused there since; never on the link), and
# `check` is the first real-rank run of the thirteenth session's input checks (SymmMemGroup's
# ranks agreeing on max_M / N / mode in its existing all-gather, TPContext's per-K verdict
# agreement, the group launch lock): rebuild cache_tp2 from HEAD (rs/ar 160 / 192 kernels).
# Fourteenth session: rebuild again (rs/ar tile kernels past N); `ragged` also times rs/ar at N
# 4544 (past N) and 4608 (the extra widths' rule against BNS's 128) on the link.
# Sixteenth session: rebuild again (every splitk kernel's handoff changed: its DSMEM loads in
# batches, incl. rs/ar's; one H200 only so far). Seventeenth session: rebuild again (the splitk
# handoff without its GPU-wide fences, rs/ar's too). Eighteenth: no kernel changed (mode none's
# dispatch only). The checkout's tracked files are ~35 MB now
# (the largest trace JSONs gzipped), so cache_tp2 has ~29 MB of room.
# Twenty-second / twenty-third sessions: `widen` added (rs/ar's fill rule past one wave of the
# default: N 12288 / 16384 at 132 SMs, where the default decode kernel runs a second wave of W
# tiles; the rule takes the wide decode kernels at rs/ar's own prices there, virtual ranks only
# so far). No kernel changed since the seventeenth session's rebuild. Twenty-third session: rs/ar
# take splitk without a table where a cluster per 64-row W tile fits one wave (dispatch.FUSED_SPLITK,
# virtual ranks only): `check` (run_correctness's fixed splitk cases and its fuzz, whose dispatch
# now picks splitk at small N) is the first run of the rs/ar splitk kernels across GPUs, and
# `splitk` times the dispatch (now splitk) against the old default (swapab, cta_group 1) too.
# Twenty-fourth session: `check` (run_correctness's extra cases, --quick included) also sends
# special values across the link (zero padding rows whose partials are all -0.0, the decode
# exchange's Lamport sentinel before the scrub; +Inf / NaN in x) through the dispatch's decode
# kernel, splitk in clusters of 2 and the tile schedule: new, never run (no x2 lent; the same
# values pass on virtual ranks, tests/gpu/test_special_values.py). No kernel changed.
# Replaces the fourth session's next_x2.sh (never run; removed: same `large` and `smalln`, here
# with `check` and `splitk` added). Build here first (CPU, ~2 min), narrowed so the carry stays
# under 64 MiB with the checkout (~37 MB), cubins only:
#   codegen build --tp 2 --arch sm_90a --transport unicast --no-progress --cache-dir cache_tp2
#   mkdir -p cache_tp2/tuning && cp docs/results/2026-12-01_h200_third/tuning/*.json cache_tp2/tuning/
#   python -c "import sys; sys.path.insert(0, 'tools'); from ab_cubins import strip_to_cubins; \
#       from pathlib import Path; strip_to_cubins(Path('cache_tp2'))"
#   for `large` also two older builds of the tile kernels (3 builds A/B on the link):
#   python tools/ab_cubins.py 68898f8 --cache-dir cache_tp2/ab_prev --cubins-only -- --tp 2 \
#       --arch sm_90a --transport unicast --schedule tile --mode rs,ar   (grouped order, stores at once)
#   python tools/ab_cubins.py 3b222c0 --cache-dir cache_tp2/ab_old --cubins-only -- --tp 2 \
#       --arch sm_90a --transport unicast --schedule tile --mode rs,ar   (before the grouped order)
# then carry `cache_tp2` and run:
#   bash docs/results/2026-12-01_h200_splitk/next_x2.sh check    (~1 min: correctness, splitk on real ranks first time)
#   bash docs/results/2026-12-01_h200_splitk/next_x2.sh decode   (~6 min: issue 9's table, N 7168)
#   bash docs/results/2026-12-01_h200_splitk/next_x2.sh splitk   (~3 min: fused splitk at small N)
#   bash docs/results/2026-12-01_h200_splitk/next_x2.sh smalln   (~4 min: fused decode at N 4096)
#   bash docs/results/2026-12-01_h200_splitk/next_x2.sh ragged   (~6 min: rs/ar wide kernel past N, tiles past N, widths)
#   bash docs/results/2026-12-01_h200_splitk/next_x2.sh large    (~8 min: issue 10, 3 builds A/B)
#   bash docs/results/2026-12-01_h200_splitk/next_x2.sh widen    (~6 min: rs/ar past one wave, N 12288 / 16384)
# `splitk` asks whether rs/ar want mode none's K split at small N (mode none: 1.03x-2.68x at N
# <= 3072, K >= 3072; BENCHMARKS.md fifth session): N 2048 (a 2B-class model's hidden size), K
# per rank 4096 / 8192, the dispatch (one 64-row W tile per CTA: 32 CTAs) against splitk with
# clusters of 2 and of 4. (Since the twenty-third session the dispatch takes splitk there; if
# the old default wins on the link, set dispatch.FUSED_SPLITK False.)
# bench_multi_gpu.py --rounds 3 (new, not yet run on two GPUs: CPU tests only) times every path
# of a row three times in shared random orders.
# `smalln` (seventh session): the dispatch is now dispatch.choose_fused_by_fill (at N 4096 the
# default's 64 CTAs leave half of 132 SMs idle, so it weighs the wide kernels; on two virtual
# ranks of one H200 it was 1.00x-2.13x the old default, never slower: BENCHMARKS.md seventh
# session); `--schedule swapab --cta-group 1` is the old default. If the rule loses on the link,
# raise or drop dispatch.FUSED_FILL_MAX_SHARE.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000 PYTHONPATH=. CODEGEN_CACHE_DIR=cache_tp2
R=$OUT/r; mkdir -p $R
T0=$(date +%s)
TR="torchrun --nproc-per-node 2"
case "${1:-}" in
  check)
    timeout 120 $TR tests/multigpu/run_correctness.py --quick > $R/quick.txt 2>&1
    echo "quick rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/quick.txt)"; grep FAIL $R/quick.txt | head
    timeout 90 $TR tests/multigpu/run_correctness.py --fuzz 100000 --fuzz-budget-s 40 > $R/fuzz.txt 2>&1
    echo "fuzz rc=$? $(( $(date +%s)-T0 ))s: $(tail -1 $R/fuzz.txt)" ;;
  splitk)
    for fix in "" "--schedule swapab --cta-group 1" "--schedule splitk --cta-group 2" "--schedule splitk --cta-group 4"; do
      tag=$(echo "${fix:-dispatch}" | tr -d ' -' )
      timeout 170 $TR tools/bench_multi_gpu.py --modes rs,ar --n 2048 --ks 4096,8192 \
        --ms 16,32,64,128 --rounds 3 $fix --json $R/splitk_$tag.json > $R/splitk_$tag.txt 2>&1
      echo "splitk $tag rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/splitk_$tag.txt | cut -c1-110
    done ;;
  smalln)
    for fix in "" "--schedule swapab --cta-group 1" "--schedule swapab --bn 64 --cta-group 2" \
               "--schedule swapab --bn 128 --cta-group 2"; do
      tag=$(echo "${fix:-dispatch}" | tr -d ' -' )
      timeout 150 $TR tools/bench_multi_gpu.py --modes rs,ar --n 4096 --ks 2048,7168 \
        --ms 64,128,256,384,512 --rounds 3 $fix --json $R/smalln_$tag.json > $R/smalln_$tag.txt 2>&1
      echo "smalln $tag rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/smalln_$tag.txt | cut -c1-110
    done ;;
  decode)
    # issue 9's target table (fused rs / ar at TP2 against the best unfused path, decode M):
    # not timed across two GPUs since the fourth session; every decode change since then
    # (token tile 144..224 rules, the wide rs/ar kernels, the fused fill rule) is in it
    timeout 400 $TR tools/bench_multi_gpu.py --modes rs,ar --n 7168 --ks 768,1536,2304 \
      --ms 16,32,64,128,256,512 --rounds 3 --json $R/decode.json > $R/decode.txt 2>&1
    echo "decode rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/decode.txt | cut -c1-110 ;;
  ragged)
    # gpt-oss's hidden size: the default (cta_group 1, one 64-row W tile per CTA: 45 CTAs)
    # against the wide kernel past N at two token tiles. If cg2 wins on the link, let
    # dispatch.choose_fused_by_fill weigh it past N (drop its 128 | N clause).
    for fix in "" "--schedule swapab --bn 64 --cta-group 2" "--schedule swapab --bn 128 --cta-group 2"; do
      tag=$(echo "${fix:-dispatch}" | tr -d ' -' )
      timeout 150 $TR tools/bench_multi_gpu.py --modes rs,ar --n 2880 --ks 2048,4096 \
        --ms 64,128,256,384,512 --rounds 3 $fix --json $R/ragged_$tag.json > $R/ragged_$tag.txt 2>&1
      echo "ragged $tag rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/ragged_$tag.txt | cut -c1-110
    done
    # thirteenth session: past the decode rows N 2880 is now fused at width 192 (before: torch.mm +
    # NCCL); the fused vs the unfused paths on the link (never measured), and 160 for reference
    for fix in "" "--schedule tile --bn 160"; do
      tag=$(echo "${fix:-dispatch}" | tr -d ' -' )
      timeout 150 $TR tools/bench_multi_gpu.py --modes rs,ar --n 2880 --ks 1536,4096 \
        --ms 1024,4096,16384 --rounds 3 $fix --json $R/wide2880_$tag.json > $R/wide2880_$tag.txt 2>&1
      echo "wide2880 $tag rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/wide2880_$tag.txt | cut -c1-110
    done
    # fourteenth session: rs/ar's tiles past N (N 4544: no width divides it; fused past the
    # decode rows since, never on the link) and the extra widths where BNS divides N too (N 4608
    # = 24 x 192: the rule now takes 192 at M 1024..2048, the BNS rule took 128; virtual ranks
    # only). Against the unfused paths, and the width the rule used to take
    for spec in "4544 " "4608 " "4608 --schedule tile --bn 128"; do
      set -- $spec; n=$1; shift; fix="$*"
      tag=$(echo "n${n}${fix:+_$fix}" | tr -d ' -' )
      timeout 150 $TR tools/bench_multi_gpu.py --modes rs,ar --n $n --ks 4096 \
        --ms 600,1024,2048,8192 --rounds 3 $fix --json $R/w14_$tag.json > $R/w14_$tag.txt 2>&1
      echo "w14 $tag rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/w14_$tag.txt | cut -c1-110
    done ;;
  widen)
    # N 12288 (Mistral Large 2's hidden size) / 16384 (Llama-3 405B's), K per rank at TP2: the
    # rule's pick against the default it replaced (cta_group 1: one 64-row W tile per CTA, 192 /
    # 256 of them on 132 SMs) and against the unfused paths. If the old default wins on the
    # link, set dispatch.FUSED_FILL_PAST_ONE_WAVE False.
    for fix in "" "--schedule swapab --cta-group 1"; do
      tag=$(echo "${fix:-dispatch}" | tr -d ' -' )
      for nk in 12288:3072,14336 16384:4096,6656; do
        timeout 150 $TR tools/bench_multi_gpu.py --modes rs,ar --n ${nk%%:*} --ks ${nk#*:} \
          --ms 16,64,128,256,512 --rounds 3 $fix --json $R/widen_${tag}_${nk%%:*}.json > $R/widen_${tag}_${nk%%:*}.txt 2>&1
        echo "widen $tag N ${nk%%:*} rc=$? $(( $(date +%s)-T0 ))s"; grep -E "^\s+(rs|ar) " $R/widen_${tag}_${nk%%:*}.txt | cut -c1-110
      done
    done ;;
  large)
    timeout 570 python3 tools/ab_time.py --side new=cache_tp2 --side prev=cache_tp2/ab_prev \
      --side old=cache_tp2/ab_old --reps 2 --timeout 90 --out $R/large -- $TR \
      tools/bench_multi_gpu.py --modes rs,ar --ms 2048,8192,32768 --ks 768,2304 --link-mib 512 \
      --replays 10 --no-ours-gemm --schedule tile --json {json}
    echo "large-M done $(( $(date +%s)-T0 ))s" ;;
  *) echo "next_x2.sh: say check, decode, splitk, smalln, ragged, widen or large" >&2; exit 64 ;;
esac
cd $OUT && tar czf r.tgz r && rm -rf r
