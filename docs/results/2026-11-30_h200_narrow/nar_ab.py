"""A/B: mode none, the dispatched op (main) or the forced bn-192 kernel (the narrow prototype),
against torch.mm: python nar_ab.py LABEL OUT.json [forced]"""
import json
import sys

sys.path.insert(0, "tools")
import torch  # noqa: E402

from codegen.runtime import GemmRsAr  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

label, path = sys.argv[1], sys.argv[2]
forced = len(sys.argv) > 3
MS = [1, 17, 64, 65, 96, 100, 112, 127, 128, 129, 144, 160, 192, 200, 224, 256, 288, 320]
res = []
torch.manual_seed(0)
bad = 0
for N, K in ((896, 256), (7168 * 2, 128)):
    w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
    kw = dict(schedule="swapab", bn=192, cta_group=1) if forced else {}
    op = GemmRsAr(512, N, K, "none", **kw)
    for M in MS + [511]:
        x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        op(0, x, w, out=out)
        torch.cuda.synchronize()
        ref = x.float() @ w.float().T
        err = float((out.float() - ref).abs().max())
        if not err <= 0.02:
            bad += 1
            print(json.dumps({"FAIL": True, "N": N, "K": K, "M": M, "err": err}), flush=True)
print(label, "check failures:", bad, flush=True)
N = 7168
for K in (768, 1536, 2304):
    w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
    kw = dict(schedule="swapab", bn=192, cta_group=1) if forced else {}
    op = GemmRsAr(512, N, K, "none", **kw)
    for M in MS:
        x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        mm = graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)
        out.fill_(float("nan"))
        ours = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
        err = float((out.float() - x.float() @ w.float().T).abs().max())
        r = {"label": label, "K": K, "M": M, "mm": mm, "ours": ours, "maxerr": err,
             "variant": op.last_launch[0]["variant"], "grid": op.last_launch[0].get("grid")}
        print(json.dumps(r), flush=True)
        res.append(r)
json.dump(res, open(path, "w"), indent=1)
