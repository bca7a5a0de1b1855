"""Narrow prototype tails: bn 192 = tma_t tails, bn 224 = full box (zero fill) tails."""
import json
import sys

sys.path.insert(0, "tools")
import torch  # noqa: E402

from codegen.runtime import GemmRsAr  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402

torch.manual_seed(0)
N, K = 7168, 2304
w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
ops = {bn: GemmRsAr(512, N, K, "none", schedule="swapab", bn=bn, cta_group=1) for bn in (192, 224)}
for M in (64, 65, 96, 127, 128, 129, 192, 256):
    x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
    out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    row = {"M": M, "mm": graph_time_us(lambda: torch.mm(x, w.t(), out=out), 20, 30)}
    for bn, op in ops.items():
        zero = torch.zeros(M, K, device="cuda", dtype=torch.bfloat16)
        row[f"bn{bn}"] = graph_time_us(lambda: op(0, x, w, out=out), 20, 30)
        err = float((out.float() - x.float() @ w.float().T).abs().max())
        row[f"err{bn}"] = round(err, 4)
        row[f"bn{bn}_zero_x"] = graph_time_us(lambda: op(0, zero, w, out=out), 20, 30)
    print(json.dumps(row), flush=True)
