"""Where does mode none swapab bn128 cg1 spend its time at M=128? Vary N (CTAs) and K (k-iters)
and sm_budget (tiles per CTA)."""
import sys, json
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import torch
from codegen.runtime import GemmRsAr
from graph_timing import graph_time_us
res = []
for M in (64, 128):
  for N, K, smb in [(7168, 2304, None), (3584, 2304, None), (1792, 2304, None), (7168, 1152, None),
                    (7168, 2304, 56), (7168, 4608, None), (7168, 768, None)]:
    w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    t_mm = graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)
    op = GemmRsAr(512, N, K, "none", schedule="swapab", bn=M, cta_group=1, sm_budget=smb)
    op(0, x, w, out=out)
    t = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
    r = dict(M=M, N=N, K=K, smb=smb, mm=t_mm, ours=t)
    print(r, flush=True); res.append(r)
json.dump(res, open(sys.argv[1], "w"), indent=1)
