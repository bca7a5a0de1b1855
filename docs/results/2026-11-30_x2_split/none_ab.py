"""Mode none decode kernel at its dispatch token tile, grid tiles (and split where the runtime
has it) vs torch.mm; run once with the old runtime on PYTHONPATH and once with the new."""
import sys, json, inspect
sys.path.insert(0, "tools")
import torch
from codegen.runtime import GemmRsAr
from graph_timing import graph_time_us
has_grid = "grid" in inspect.signature(GemmRsAr.__init__).parameters
res = []
for K in (768, 1536, 2304):
    w = torch.randn(7168, K, device="cuda").to(torch.bfloat16)
    for M in (16, 32, 64, 128, 256, 512):
        x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
        out = torch.empty(M, 7168, device="cuda", dtype=torch.bfloat16)
        ref = x.float() @ w.float().t()
        r = {"K": K, "M": M, "mm": graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)}
        bt = min(256, max(16, 1 << (M - 1).bit_length()))
        for g in (("tiles", "split") if has_grid else ("tiles",)):
            kw = {"grid": g} if has_grid else {}
            op = GemmRsAr(512, 7168, K, "none", schedule="swapab", bn=bt, cta_group=1, **kw)
            out.fill_(float("nan"))
            op(0, x, w, out=out); torch.cuda.synchronize()
            err = float((out.float() - ref).norm() / ref.norm())
            r[g] = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
            r[g + "_err"] = err
            r[g + "_ctas"] = op.last_launch[0]["grid"]
        print(r, flush=True); res.append(r)
json.dump(res, open(sys.argv[1], "w"), indent=1)
