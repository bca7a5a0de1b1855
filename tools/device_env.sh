# Sourced by a device call script (docs/results/*/call*.sh), from the repository root:
#
#   source tools/device_env.sh [CACHE_DIR]      # default cache_gpu
#
# Sets what every call on the lent GPUs needs: NVLink multicast off for torch symm-mem, NCCL
# and NVSHMEM (never create a multicast object on these machines), the checkout on PYTHONPATH,
# unbuffered output, 32 device connections (virtual ranks: one stream per rank), a 5 s bound on
# every in-kernel wait, the kernel cache the call carried (CODEGEN_CACHE_DIR), and R=$OUT/r
# (created) for what the call brings back. Scripts written before the twenty-first session set
# these inline; they are records of what ran and are left as they are.
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 CUDA_DEVICE_MAX_CONNECTIONS=32 CODEGEN_WAIT_TIMEOUT_MS=5000
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}."
export CODEGEN_CACHE_DIR="${1:-cache_gpu}"
if [ ! -d "$CODEGEN_CACHE_DIR" ]; then
  echo "device_env.sh: no kernel cache at '$CODEGEN_CACHE_DIR': build it here and name it in the run's carry" >&2
  return 66 2>/dev/null || exit 66
fi
R="${OUT:?device_env.sh: OUT is not set (the device tool sets it)}/r"
mkdir -p "$R"
