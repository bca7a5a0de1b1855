"""Mode none decode kernel: cta_group 1 vs the x-multicast pair (cta_group 2), token tile = the
dispatch one, vs torch.mm; graph-timed, alternating twice."""
import sys, json
sys.path.insert(0, "tools")
import torch
from codegen.runtime import GemmRsAr
from graph_timing import graph_time_us
res = []
for rnd in range(2):
    for K in (768, 1536, 2304):
        w = torch.randn(7168, K, device="cuda").to(torch.bfloat16)
        for M in (16, 32, 64, 128, 256, 512):
            x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
            out = torch.empty(M, 7168, device="cuda", dtype=torch.bfloat16)
            ref = x.float() @ w.float().t()
            r = {"round": rnd, "K": K, "M": M, "mm": graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)}
            bt = min(256, max(16, 1 << (M - 1).bit_length()))
            for cg in (1, 2):
                op = GemmRsAr(512, 7168, K, "none", schedule="swapab", bn=bt, cta_group=cg)
                out.fill_(float("nan"))
                op(0, x, w, out=out); torch.cuda.synchronize()
                r[f"cg{cg}_err"] = float((out.float() - ref).norm() / ref.norm())
                r[f"cg{cg}"] = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
            print(r, flush=True); res.append(r)
json.dump(res, open(sys.argv[1], "w"), indent=1)
