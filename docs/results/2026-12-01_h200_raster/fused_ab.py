"""Fused rs/ar tile kernels on two virtual ranks of one H200 (old vs new builds of the same
kernels, chosen by CODEGEN_CACHE_DIR; not TP2 times): graph replay of run_all, the tile
schedule at the op's own BN / CTA group. argv: label, json path, M list, K list."""
import json
import sys

sys.path.insert(0, "tools")
import torch  # noqa: E402

from codegen.runtime import GemmRsAr, VirtualGroup  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

label, path = sys.argv[1], sys.argv[2]
ms = [int(v) for v in sys.argv[3].split(",")]
ks = [int(v) for v in sys.argv[4].split(",")]
N, tp = 7168, 2
res = []
for mode in ("rs", "ar"):
    group = VirtualGroup(tp, max(ms), N, mode)
    for K in ks:
        op = GemmRsAr(max(ms), N, K, mode, group, schedule="tile")
        for M in ms:
            xs = [(torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
            ws = [(torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
            t = graph_time_us(lambda: op.run_all(xs, ws), 5, 10)
            op.synchronize()
            op.check_errors()
            r = {"label": label, "mode": mode, "K": K, "M": M, "us": t, "config": str(op.config(M))}
            print(json.dumps(r), flush=True)
            res.append(r)
json.dump(res, open(path, "w"), indent=1)
