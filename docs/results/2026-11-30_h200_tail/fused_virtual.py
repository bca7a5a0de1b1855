"""Fused rs/ar decode kernels on two virtual ranks of one H200 (both ranks' kernels share the
GPU: not a TP2 number, only old vs new of the same kernels), graph replay of run_all."""
import json, sys
sys.path.insert(0, sys.argv[3] if len(sys.argv) > 3 else "tools")
import torch
from codegen.runtime import GemmRsAr, VirtualGroup
from graph_timing import graph_time_us
label, path = sys.argv[1], sys.argv[2]
N, K, tp = 7168, 2304, 2
res = []
for mode in ("rs", "ar"):
    group = VirtualGroup(tp, 512, N, mode)
    for bt, Ms in ((128, (65, 96, 127, 128)), (64, (33, 64))):
        op = GemmRsAr(512, N, K, mode, group, schedule="swapab", bn=bt, cta_group=1)
        for M in Ms:
            xs = [(torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
            ws = [(torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
            t = graph_time_us(lambda: op.run_all(xs, ws), 10, 20)
            op.synchronize(); op.check_errors()
            r = {"label": label, "mode": mode, "bt": bt, "M": M, "us": t}
            print(json.dumps(r), flush=True)
            res.append(r)
json.dump(res, open(path, "w"), indent=1)
