"""Mode none at ragged M: the dispatched kernel and a few fixed ones against torch.mm, one H200.
Run from a checkout root (PYTHONPATH=.): python tail_ab.py LABEL OUT.json [TOOLS_DIR]"""
import json
import sys

sys.path.insert(0, sys.argv[3] if len(sys.argv) > 3 else "tools")
import torch  # noqa: E402

from codegen.runtime import GemmRsAr  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

label, path = sys.argv[1], sys.argv[2]
N = 7168
MS = [16, 17, 24, 40, 48, 65, 80, 96, 100, 112, 127, 128, 129, 160, 192, 200, 255, 256, 300,
      384, 400, 511, 512]
FIXED = [("swapab", 128, 1, (65, 96, 128)), ("swapab", 64, 1, (33, 64)),
         ("tile", 128, 1, (129, 200, 256)), ("tile", 128, 2, (129, 256)),
         ("tile", 224, 2, (384, 512, 1024))]
import os  # noqa: E402
FIXED_ONLY = os.environ.get("FIXED_ONLY") == "1"
if FIXED_ONLY:
    MS = []
res = []
torch.manual_seed(0)
for K in (768, 1536, 2304):
    w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
    op = GemmRsAr(512, N, K, "none")
    for M in MS:
        x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
        out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        mm = graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)
        ours = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
        err = float((out.float() - x.float() @ w.float().T).abs().max())
        r = {"label": label, "K": K, "M": M, "kernel": "dispatch", "config": str(op.config(M)),
             "choice": str(op.choice(M)), "mm": mm, "ours": ours, "maxerr": err}
        print(json.dumps(r), flush=True)
        res.append(r)
    if K != 2304:
        continue
    for sched, bn, cg, ms in FIXED:
        fop = GemmRsAr(1024, N, K, "none", schedule=sched, bn=bn, cta_group=cg)
        for M in ms:
            x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
            out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            ours = graph_time_us(lambda: fop(0, x, w, out=out), 20, 30)
            r = {"label": label, "K": K, "M": M, "kernel": f"{sched}{bn}c{cg}", "ours": ours}
            print(json.dumps(r), flush=True)
            res.append(r)
json.dump(res, open(path, "w"), indent=1)
