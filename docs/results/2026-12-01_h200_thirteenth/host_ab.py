"""Host time per eager call, this process's codegen (PYTHONPATH picks the old or new runtime):
mode none (one GPU, x / out from pools of 4: descriptor cache hits) and rs on two virtual ranks
(`op.run_all`, the group lock's path), against torch.mm in the same process. Prints one JSON line
per point; argv: label, output path."""
import json
import statistics
import sys
import time

import torch

import codegen
from codegen.runtime import GemmRsAr, VirtualGroup

label, path = sys.argv[1], sys.argv[2]
N, K = 7168, 2304
res = []
w = torch.randn(N, K, device="cuda").to(torch.bfloat16)


def per_call(fn, n=300, reps=7):
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(n):
            fn(i)
        out.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)


for M in (16, 128):
    op = GemmRsAr(512, N, K, "none")
    pool = [torch.randn(M, K, device="cuda").to(torch.bfloat16) for _ in range(4)]
    outs = [torch.empty(M, N, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
    for i in range(20):
        op(0, pool[i % 4], w, out=outs[i % 4])
    r = {"label": label, "src": codegen.__file__, "M": M,
         "none": per_call(lambda i: op(0, pool[i % 4], w, out=outs[i % 4])),
         "mm": per_call(lambda i: torch.mm(pool[i % 4], w.t(), out=outs[i % 4]))}
    group = VirtualGroup(2, 512, N, "rs")
    rs = GemmRsAr(512, N, K, "rs", group)
    ws = [w, w.clone()]
    xs = [[torch.randn(M, K, device="cuda").to(torch.bfloat16) for _ in range(2)] for _ in range(4)]
    ro = [[torch.empty(rs.out_shape(M), device="cuda", dtype=torch.bfloat16) for _ in range(2)]
          for _ in range(4)]
    for i in range(20):
        rs.run_all(xs[i % 4], ws, out=ro[i % 4])
    r["rs_run_all"] = per_call(lambda i: rs.run_all(xs[i % 4], ws, out=ro[i % 4]), n=100)
    print(json.dumps(r), flush=True)
    res.append(r)
json.dump(res, open(path, "w"), indent=1)
