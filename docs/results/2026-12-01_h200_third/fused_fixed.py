"""Tile kernels at fixed (BN, CTA group), for A/B of two builds chosen by CODEGEN_CACHE_DIR:
rs/ar on two virtual ranks of one H200 (not TP2 times: the "peer" is the same GPU's HBM), mode
none on one rank. Graph replay (run_all for rs/ar); each timed output is then checked against
an fp32 reference (max abs error recorded). argv: label, json path, M list, K list, configs
(e.g. 224x1,256x1,256x2)[, modes (default rs,ar)]."""
import json
import sys

sys.path.insert(0, "tools")
import torch  # noqa: E402

from codegen.runtime import GemmRsAr, VirtualGroup  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

label, path = sys.argv[1], sys.argv[2]
ms = [int(v) for v in sys.argv[3].split(",")]
ks = [int(v) for v in sys.argv[4].split(",")]
configs = [tuple(int(p) for p in c.split("x")) for c in sys.argv[5].split(",")]
modes = sys.argv[6].split(",") if len(sys.argv) > 6 else ["rs", "ar"]
N = 7168
res = []
for mode in modes:
    tp = 1 if mode == "none" else 2
    group = None if mode == "none" else VirtualGroup(tp, max(ms), N, mode)
    for K in ks:
        for bn, cg in configs:
            op = GemmRsAr(max(ms), N, K, mode, group, schedule="tile", bn=bn, cta_group=cg)
            for M in ms:
                xs = [(torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
                ws = [(torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
                if mode == "none":
                    outs = [op(0, xs[0], ws[0])]
                    call = lambda: op(0, xs[0], ws[0], out=outs[0])  # noqa: E731
                else:
                    outs = op.run_all(xs, ws)
                    call = lambda: op.run_all(xs, ws, out=outs)  # noqa: E731
                t = graph_time_us(call, 5 if tp > 1 else 20, 10)
                if group is not None:
                    op.synchronize()
                    op.check_errors()
                torch.cuda.synchronize()
                ref = sum(x.float() @ w.float().t() for x, w in zip(xs, ws))
                rows = outs[0].shape[0]
                err = max(float((o.float() - (ref if mode != "rs" else ref[r * rows:(r + 1) * rows])
                                 ).abs().max()) for r, o in enumerate(outs) if o.shape[0])
                r = {"label": label, "mode": mode, "K": K, "M": M, "bn": bn, "cg": cg, "us": t,
                     "max_abs_err": err}
                print(json.dumps(r), flush=True)
                res.append(r)
json.dump(res, open(path, "w"), indent=1)
