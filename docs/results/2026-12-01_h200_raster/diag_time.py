"""Time mode none tile kernels of one cache root (CODEGEN_CACHE_DIR) with no result check: for
diagnostic builds whose output is wrong on purpose (a probe, not a test). argv: label, json,
M list, K list."""
import json
import sys

sys.path.insert(0, "tools")
import torch  # noqa: E402

from codegen.runtime.op import GemmRsAr  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

label, path = sys.argv[1], sys.argv[2]
ms = [int(v) for v in sys.argv[3].split(",")]
ks = [int(v) for v in sys.argv[4].split(",")]
N = 7168
res = []
for K in ks:
    w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    for M in ms:
        x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
        out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        for bn, cg in ((128, 1), (128, 2), (224, 1), (224, 2), (256, 1), (256, 2)):
            op = GemmRsAr(M, N, K, "none", schedule="tile", bn=bn, cta_group=cg)
            t = graph_time_us(lambda: op(0, x, w, out=out), 20, 10)
            r = {"label": label, "K": K, "M": M, "bn": bn, "cg": cg, "us": t}
            print(json.dumps(r), flush=True)
            res.append(r)
json.dump(res, open(path, "w"), indent=1)
