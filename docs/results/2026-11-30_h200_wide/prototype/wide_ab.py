"""A/B: mode none, dispatched op (main) vs forced 'wide' swapab cta_group-2 kernels (prototype),
against torch.mm in the same process: python wide_ab.py LABEL OUT.json [wide]"""
import json, os, sys
sys.path.insert(0, "tools")
import torch  # noqa: E402
from codegen.runtime import GemmRsAr  # noqa: E402
from graph_timing import graph_time_us, rotating, weight_copies  # noqa: E402

label, path = sys.argv[1], sys.argv[2]
wide = len(sys.argv) > 3
MS = [129, 160, 192, 200, 224, 256, 288, 300, 320, 352, 384, 400, 448, 511, 512]
TS = [128, 160, 192, 224, 256]
res = []
torch.manual_seed(0)
bad = 0
if wide:
    for N, K in ((896, 256), (7168 * 2, 128), (7168, 2304)):
        w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
        for T in TS + [16, 64]:
            op = GemmRsAr(512, N, K, "none", schedule="swapab", bn=T, cta_group=2)
            for M in (1, 2, 17, 63, 127, 129, 200, 255, 300, 511, 512):
                x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
                out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                op(0, x, w, out=out)
                torch.cuda.synchronize()
                ref = x.float() @ w.float().T
                err = float((out.float() - ref).abs().max())
                tol = 0.02 * max(1.0, float(ref.abs().max()))
                if not err <= tol:
                    bad += 1
                    print(json.dumps({"FAIL": True, "N": N, "K": K, "M": M, "T": T, "err": err}), flush=True)
    print(label, "check failures:", bad, flush=True)
N = 7168
L2 = torch.cuda.get_device_properties(0).L2_cache_size
for cold in (False, True):
    for K in (768, 1536, 2304):
        w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
        ws = weight_copies(w, L2) if cold else [w]
        ops = ({T: GemmRsAr(512, N, K, "none", schedule="swapab", bn=T, cta_group=2) for T in TS}
               if wide else {"dispatch": GemmRsAr(512, N, K, "none")})
        for M in MS:
            x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
            out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            nxt = rotating(ws)
            mm = graph_time_us(lambda: torch.mm(x, nxt().t(), out=out), 20, 30)
            for key, op in ops.items():
                if wide and (N // 128) * -(-M // key) > 264:
                    continue
                out.fill_(float("nan"))
                nxt = rotating(ws)
                ours = graph_time_us(lambda: op(0, x, nxt(), out=out), 20, 30)
                err = float((out.float() - x.float() @ w.float().T).abs().max())
                r = {"label": label, "cold": cold, "K": K, "M": M, "cfg": key, "mm": mm, "ours": ours,
                     "maxerr": err, "variant": op.last_launch[0]["variant"],
                     "grid": op.last_launch[0].get("grid")}
                print(json.dumps(r), flush=True)
                res.append(r)
json.dump(res, open(path, "w"), indent=1)
