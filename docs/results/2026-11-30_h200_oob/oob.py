"""Does a partial token tile (rows past M: the TMA box reads out of bounds) cost time? The same
kernel at M = a multiple of its tile and at M just below, mode none, one H200."""
import sys, json
sys.path.insert(0, "tools")
import torch
from codegen.runtime import GemmRsAr
from graph_timing import graph_time_us
res = []
N = 7168
for K in (768, 2304):
    w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    for sched, bn, cg, Ms in (("swapab", 128, 1, (64, 65, 96, 112, 120, 127, 128)),
                              ("swapab", 64, 1, (33, 48, 63, 64)),
                              ("tile", 128, 1, (129, 160, 192, 224, 255, 256))):
        op = GemmRsAr(512, N, K, "none", schedule=sched, bn=bn, cta_group=cg)
        for M in Ms:
            x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
            out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            r = {"K": K, "sched": sched, "bn": bn, "M": M,
                 "mm": graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30),
                 "ours": graph_time_us(lambda: op(0, x, w, out=out), 20, 30),
                 "grid": op.last_launch[0]["grid"]}
            print(r, flush=True); res.append(r)
json.dump(res, open(sys.argv[1], "w"), indent=1)
