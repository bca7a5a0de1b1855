// Remote TMA store rate by box shape (tools/probes/tma_push_probe.py says how to build and run).
// One thread per CTA issues TMA tile stores of one shared-memory box to the boxes of a
// [rows, cols] bf16 tensor (CTA b takes boxes b, b + grid, ...), keeping up to DEPTH bulk groups
// reading shared memory; the tensor's descriptor sits in global memory.
#include <cstdint>

template <int DEPTH>
__device__ __forceinline__ void push_boxes_impl(const void* desc, int box_cols, int box_rows,
                                                int tiles_c, int tiles_r, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  if (threadIdx.x != 0) return;
  uint64_t d = (uint64_t)desc;
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(d) : "memory");
  uint32_t s = (uint32_t)__cvta_generic_to_shared(smem);
  const int total = tiles_r * tiles_c;
  for (int it = 0; it < iters; ++it) {
    for (int t = blockIdx.x; t < total; t += gridDim.x) {
      int c0 = (t % tiles_c) * box_cols, c1 = (t / tiles_c) * box_rows;
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                   :: "l"(d), "r"(c0), "r"(c1), "r"(s) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(DEPTH - 1) : "memory");
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// push_boxes: up to 4 bulk groups reading shared memory; push_boxes_d<N>: up to N
#define PUSH_KERNEL(name, depth)                                                              \
  extern "C" __global__ void name(const void* desc, int box_cols, int box_rows, int tiles_c, \
                                  int tiles_r, int iters) {                                  \
    push_boxes_impl<depth>(desc, box_cols, box_rows, tiles_c, tiles_r, iters);               \
  }
PUSH_KERNEL(push_boxes, 4)
PUSH_KERNEL(push_boxes_d1, 1)
PUSH_KERNEL(push_boxes_d2, 2)
PUSH_KERNEL(push_boxes_d8, 8)
