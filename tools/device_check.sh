#!/usr/bin/env bash
# One call that checks a GPU host against the kernels in the cache (a script, not a test).
#
#   bash tools/device_check.sh [--gpus N] [--out DIR] [--fuzz-s S] [--pdl] [--dry-run]
#
# Runs, from the repository root, with the kernels of $CODEGEN_CACHE_DIR (default generated/,
# built on a CPU machine with `codegen build --tp 2,4,8 --arch sm_90a --transport unicast`):
#   1. pytest -m gpu tests/gpu                    (one GPU: virtual ranks TP 2/4/8, mode none)
#   2. tools/fuzz_gpu.py                          (one GPU: random shapes, call sequences, bad inputs)
#   with --gpus N >= 2, over N real ranks (torchrun):
#   3. tests/multigpu/run_correctness.py --quick  (fixed cases, lifetime, graph replay, a lost peer)
#   4. tests/multigpu/run_correctness.py --fuzz   (random rs/ar cases on real ranks)
#   5. tests/multigpu/run_tp_linear.py            (the serving layer and custom ops)
#   6. examples/llama_block_tp.py --check-only    (the Llama-style block against torch)
# Each step's log goes to DIR/<step>.log; one line per step says PASS or FAIL; the exit status
# is the number of failed steps. --pdl runs everything with CODEGEN_PDL=1 (programmatic
# dependent launch). NVLink multicast stays off: the three switches below are forced, so no
# step can create a multicast object.
set -u

GPUS=1
OUT=device_check
FUZZ_S=60
DRY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus) GPUS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --fuzz-s) FUZZ_S="$2"; shift 2 ;;
    --pdl) export CODEGEN_PDL=1; shift ;;
    --dry-run) DRY=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "device_check.sh: unknown argument '$1' (--help lists them)" >&2; exit 64 ;;
  esac
done
case "$GPUS" in
  ''|*[!0-9]*|0) echo "device_check.sh: --gpus must be a positive integer, got '$GPUS'" >&2; exit 64 ;;
esac
case "$FUZZ_S" in
  ''|*[!0-9]*) echo "device_check.sh: --fuzz-s must be a whole number of seconds, got '$FUZZ_S'" >&2; exit 64 ;;
esac

export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}." PYTHONUNBUFFERED=1
mkdir -p "$OUT"
FAILED=0

step() {  # step NAME COMMAND...: run it, log it, print PASS/FAIL with the seconds it took
  local name="$1"; shift
  if [ "$DRY" = 1 ]; then echo "$name: $*"; return; fi
  local t0=$SECONDS
  "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  local last
  last=$(grep -v '^\s*$' "$OUT/$name.log" | tail -1 | cut -c1-160)
  if [ $rc = 0 ]; then echo "PASS $name ($((SECONDS - t0)) s): $last"
  else echo "FAIL $name (exit $rc, $((SECONDS - t0)) s): $last  [log: $OUT/$name.log]"; FAILED=$((FAILED + 1)); fi
}

step gpu_tests python3 -m pytest -m gpu tests/gpu -q
step fuzz_gpu python3 tools/fuzz_gpu.py --cases 100000 --budget-s "$FUZZ_S" --json "$OUT/fuzz_gpu.json"
if [ "$GPUS" -ge 2 ]; then
  TR="torchrun --nproc-per-node $GPUS"
  step correctness $TR tests/multigpu/run_correctness.py --quick
  step correctness_fuzz $TR tests/multigpu/run_correctness.py --fuzz 100000 --fuzz-budget-s "$FUZZ_S"
  step tp_linear $TR tests/multigpu/run_tp_linear.py --modes ar,rs
  step llama $TR examples/llama_block_tp.py --check-only
fi
[ "$DRY" = 1 ] || echo "device_check: $FAILED step(s) failed (CODEGEN_PDL=${CODEGEN_PDL:-0}, $GPUS GPU(s))"
exit $FAILED
