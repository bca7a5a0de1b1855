"""Fused rs/ar tile kernels on two virtual ranks of one H200 at large M (old vs new of the same
kernels; not TP2 times), graph replay of run_all, the op's own dispatch."""
import json, sys
sys.path.insert(0, sys.argv[3] if len(sys.argv) > 3 else "tools")
import torch
from codegen.runtime import GemmRsAr, VirtualGroup
from graph_timing import graph_time_us
label, path = sys.argv[1], sys.argv[2]
N, tp = 7168, 2
res = []
for mode in ("rs", "ar"):
    group = VirtualGroup(tp, 8192, N, mode)
    for K in (768, 2304):
        op = GemmRsAr(8192, N, K, mode, group, schedule="tile")
        for M in (1024, 2000, 4096, 8192):
            xs = [(torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
            ws = [(torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
            t = graph_time_us(lambda: op.run_all(xs, ws), 5, 10)
            op.synchronize(); op.check_errors()
            r = {"label": label, "mode": mode, "K": K, "M": M, "us": t, "config": str(op.config(M))}
            print(json.dumps(r), flush=True)
            res.append(r)
json.dump(res, open(path, "w"), indent=1)
