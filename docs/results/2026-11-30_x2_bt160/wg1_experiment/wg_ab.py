"""A/B: decode kernel (mode none, cta_group 1) at forced token tiles; run once per checkout
(PYTHONPATH picks the codegen package): python wg_ab.py LABEL OUT.json"""
import json
import sys

sys.path.insert(0, "tools")
import torch  # noqa: E402

from codegen.runtime import GemmRsAr  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

label, path = sys.argv[1], sys.argv[2]
N = 7168
CASES = [(16, 16), (32, 32), (48, 64), (64, 64), (96, 128), (128, 128), (150, 160), (160, 160),
         (192, 192), (224, 224), (256, 256)]
res = []
torch.manual_seed(0)
for K in (768, 1536, 2304):
    w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
    for M, bt in CASES:
        op = GemmRsAr(512, N, K, "none", schedule="swapab", bn=bt, cta_group=1)
        x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        op(0, x, w, out=out)
        torch.cuda.synchronize()
        err = float((out.float() - x.float() @ w.float().T).abs().max())
        mm = graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)
        ours = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
        r = {"label": label, "K": K, "M": M, "bt": bt, "mm": mm, "ours": ours, "maxerr": err,
             "variant": op.last_launch[0]["variant"]}
        print(json.dumps(r), flush=True)
        res.append(r)
json.dump(res, open(path, "w"), indent=1)
