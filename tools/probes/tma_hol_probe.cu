// Do remote TMA stores hold up the same SM's TMA loads? (tools/probes/tma_hol_probe.py runs it.)
// Per CTA: warp 0 (one lane) streams `n_loads` TMA tile loads of a local bf16 tensor through 4
// shared-memory stages (one mbarrier each), as a GEMM mainloop does, and records how long they
// took (%globaltimer); meanwhile warp 1 (one lane) issues TMA tile stores of one box through
// `store_desc` (the peer's buffer, or this GPU's, or none when store_desc is 0), up to 4 bulk
// groups reading shared memory, until warp 0 is done.
#include <cstdint>

__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

extern "C" __global__ void loads_with_stores(const void* load_desc, int load_tiles_c,
                                             int load_tiles_r, int n_loads,
                                             const void* store_desc, int store_tiles_c,
                                             int store_tiles_r, unsigned long long* out_ns) {
  constexpr int STAGES = 4, BOX_BYTES = 128 * 64 * 2;     // a 64 x 128 bf16 box: 16 KB
  extern __shared__ __align__(1024) uint8_t smem[];       // STAGES load stages + 1 store box
  __shared__ __align__(8) uint64_t bars[STAGES];
  __shared__ volatile int loads_done;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  if (threadIdx.x == 0) {
    loads_done = 0;
    for (int s = 0; s < STAGES; ++s) {
      uint32_t b = (uint32_t)__cvta_generic_to_shared(&bars[s]);
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == 0 && lane == 0) {
    uint64_t ld = (uint64_t)load_desc;
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(ld) : "memory");
    const int total = load_tiles_c * load_tiles_r;
    uint32_t phase[STAGES] = {0, 0, 0, 0};
    uint64_t t0 = now_ns();
    for (int i = 0; i < n_loads + STAGES; ++i) {
      int s = i % STAGES;
      uint32_t b = (uint32_t)__cvta_generic_to_shared(&bars[s]);
      if (i >= STAGES) {          // wait for the load issued STAGES iterations ago
        uint32_t done = 0;
        while (!done) {
          asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                       "selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(b), "r"(phase[s]) : "memory");
        }
        phase[s] ^= 1;
      }
      if (i < n_loads) {
        int t = (blockIdx.x + i * gridDim.x) % total;
        int c0 = (t % load_tiles_c) * 64, c1 = (t / load_tiles_c) * 128;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     :: "r"(b), "r"(BOX_BYTES) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(base + s * BOX_BYTES), "l"(ld), "r"(c0), "r"(c1), "r"(b) : "memory");
      }
    }
    out_ns[blockIdx.x] = now_ns() - t0;
    loads_done = 1;
  } else if (warp == 1 && lane == 0 && store_desc != nullptr) {
    uint64_t sd = (uint64_t)store_desc;
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(sd) : "memory");
    const int total = store_tiles_c * store_tiles_r;
    uint32_t src = base + STAGES * BOX_BYTES;
    for (int t = blockIdx.x; loads_done == 0; t += gridDim.x) {
      int u = t % total;
      int c0 = (u % store_tiles_c) * 64, c1 = (u / store_tiles_c) * 128;
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                   :: "l"(sd), "r"(c0), "r"(c1), "r"(src) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 3;" ::: "memory");
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
