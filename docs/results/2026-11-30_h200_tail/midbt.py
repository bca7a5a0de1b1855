"""Experiment: swapab token tiles 160/192/224 (mode none) at M 129..256 vs torch.mm and the
current kernels, one H200. The contract's SWAPAB_BNS is widened in-process only."""
import json, sys
import codegen.contract as c
c.SWAPAB_BNS = (16, 32, 64, 128, 160, 192, 224, 256)
sys.path.insert(0, "tools")
import torch
from codegen.runtime import GemmRsAr
from graph_timing import graph_time_us
N = 7168
res = []
torch.manual_seed(1)
for K in (768, 1536, 2304):
    w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
    ops = {f"s{bt}c{cg}": GemmRsAr(512, N, K, "none", schedule="swapab", bn=bt, cta_group=cg)
           for bt in (128, 160, 192, 224, 256) for cg in (1, 2)}
    ops["t128c2"] = GemmRsAr(512, N, K, "none", schedule="tile", bn=128, cta_group=2)
    ops["t128c1"] = GemmRsAr(512, N, K, "none", schedule="tile", bn=128, cta_group=1)
    for M in (129, 144, 160, 176, 192, 208, 224, 240, 256, 320, 384):
        x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
        out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        ref = x.float() @ w.float().T
        r = {"K": K, "M": M, "mm": graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)}
        for name, op in ops.items():
            bt = int(name[1:4]) if name[0] == "s" else 0
            if bt and bt * 8 < M:
                continue
            out.fill_(float("nan"))
            op(0, x, w, out=out)
            torch.cuda.synchronize()
            err = float((out.float() - ref).abs().max())
            r[name] = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
            r[name + "_err"] = err
        best = min((k for k in r if k[0] in "st" and not k.endswith("_err")), key=r.get)
        print(K, M, "mm %.2f" % r["mm"], " ".join(f"{k}:{r[k]:.2f}" for k in r if k[0] in "st" and not k.endswith("_err")),
              "| best", best, "x%.2f" % (r["mm"] / r[best]), "maxerr %.3f" % max(r[k] for k in r if k.endswith("_err")), flush=True)
        res.append(r)
json.dump(res, open(sys.argv[1], "w"), indent=1)
