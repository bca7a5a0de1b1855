"""A/B: decode kernel (mode none) at forced token tiles and cta groups; run once per checkout
(PYTHONPATH picks the codegen package): python xmc_ab.py LABEL OUT.json CGS"""
import json
import sys

sys.path.insert(0, "tools")
import torch  # noqa: E402

from codegen.runtime import GemmRsAr  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

label, path, cgs = sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3].split(",")]
CASES = [(16, 16), (32, 32), (64, 64), (96, 128), (128, 128), (160, 160), (192, 192),
         (256, 256), (288, 160), (384, 192), (448, 224)]
res = []
torch.manual_seed(0)
# correctness first: ragged M, an odd number of W tiles, NaN-poisoned outputs
for N, K in ((7168 + 64, 768), (1024, 128), (64, 256)):
    w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
    for cg in cgs:
        for bt in (16, 32, 64, 128, 160, 256):
            try:
                op = GemmRsAr(512, N, K, "none", schedule="swapab", bn=bt, cta_group=cg)
            except Exception as exc:  # noqa: BLE001
                print(label, "refused", N, K, bt, cg, type(exc).__name__, exc, flush=True)
                continue
            for M in sorted({1, 7, bt - 1 if bt > 1 else 1, bt, bt + 3, 2 * bt + 1}):
                if M > 512:
                    continue
                x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
                out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                op(0, x, w, out=out)
                torch.cuda.synchronize()
                ref = x.float() @ w.float().T
                err = float((out.float() - ref).abs().max())
                ok = err <= 0.02 * max(1.0, float(ref.abs().max()))
                if not ok:
                    print(json.dumps({"label": label, "FAIL": True, "N": N, "K": K, "M": M, "bt": bt,
                                      "cg": cg, "err": err}), flush=True)
                res.append({"label": label, "check": True, "N": N, "K": K, "M": M, "bt": bt,
                            "cg": cg, "err": err, "ok": ok})
print(label, "checks:", sum(r["ok"] for r in res), "of", len(res), flush=True)
N = 7168
for K in (768, 1536, 2304):
    w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
    for M, bt in CASES:
        x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        mm = graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)
        for cg in cgs:
            op = GemmRsAr(512, N, K, "none", schedule="swapab", bn=bt, cta_group=cg)
            out.fill_(float("nan"))
            ours = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
            err = float((out.float() - x.float() @ w.float().T).abs().max())
            r = {"label": label, "K": K, "M": M, "bt": bt, "cg": cg, "mm": mm, "ours": ours,
                 "maxerr": err}
            print(json.dumps(r), flush=True)
            res.append(r)
json.dump(res, open(path, "w"), indent=1)
