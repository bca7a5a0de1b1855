#!/usr/bin/env python3
"""A virtual group's per-rank call `op(r, x, w)` inside a CUDA-graph capture (a probe, not a
test; needs a GPU and a kernel cache: CODEGEN_CACHE_DIR). Prints whether the capture of rank 0's
call alone (then `op.join()`) raises and where, and whether the capture of `run_all` works
afterwards in the same process. Thirty-first session: a GPU test doing the former failed and
the next test's `torch.cuda.use_mem_pool` aborted the process."""
from __future__ import annotations

import traceback

import torch

from codegen.runtime import GemmRsAr, VirtualGroup


def main() -> None:
    tp, M, N, K = 2, 256, 1024, 768
    group = VirtualGroup(tp, M, N, "rs")
    op = GemmRsAr(M, N, K, "rs", group, timeout_ms=200)
    xs = [torch.randn(M, K, device="cuda").bfloat16() for _ in range(tp)]
    ws = [torch.randn(N, K, device="cuda").bfloat16() for _ in range(tp)]
    op.run_all(xs, ws)
    op.synchronize()
    for name, body in (("rank 0 alone", lambda: (op(0, xs[0], ws[0]), op.join())),
                       ("run_all", lambda: op.run_all(xs, ws))):
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                body()
            print(f"{name}: captured", flush=True)
        except Exception:
            print(f"{name}: raised", flush=True)
            traceback.print_exc()
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
