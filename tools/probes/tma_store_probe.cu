// TMA store probe kernels (tools/probes/tma_store_probe.py says how to build and run them).
#include <cuda.h>
#include <cstdint>
__device__ __forceinline__ void fill_and_store(uint64_t d, int c0, int c1, int fence, uint16_t* buf) {
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x) buf[i] = (uint16_t)(i / 32 + 1);  // row id + 1 (swizzle moves columns only)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x < 32) {
    if (fence) asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(d) : "memory");
    uint32_t s = (uint32_t)__cvta_generic_to_shared(buf);
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(d), "r"(c0), "r"(c1), "r"(s) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  __syncthreads();
}
extern "C" __global__ void store_gdesc(const void* desc, int c0, int c1, int fence) {
  __shared__ alignas(1024) uint16_t buf[128 * 32];
  fill_and_store((uint64_t)desc, c0, c1, fence, buf);
}
extern "C" __global__ void store_pdesc(const __grid_constant__ CUtensorMap desc, int c0, int c1) {
  __shared__ alignas(1024) uint16_t buf[128 * 32];
  fill_and_store((uint64_t)&desc, c0, c1, 0, buf);
}
