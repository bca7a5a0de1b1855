"""Run mode none at one (N, K, M) with fixed kernel choices, and torch.mm, a few times each, for
ncu (a probe, not a test). argv: N K M CHOICE[,CHOICE...] with CHOICE like swapab96c2 or
tile128c2 (tools/probes/choice_ab.py's fixed form); every output is checked against fp32."""
import re
import sys

import torch

from codegen.runtime.op import GemmRsAr

N, K, M = (int(v) for v in sys.argv[1:4])
x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
ref = x.float() @ w.float().t()
for choice in sys.argv[4].split(","):
    schedule, bn, cg = re.fullmatch(r"(tile|swapab|splitk)(\d+)c(\d)", choice).groups()
    op = GemmRsAr(M, N, K, "none", schedule=schedule, bn=int(bn), cta_group=int(cg))
    out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    for _ in range(2):
        op(0, x, w, out=out)
    torch.cuda.synchronize()
    err = float((out.float() - ref).norm() / ref.norm())
    print(choice, op.variant(M).name, "relerr", err, "WRONG" if not err < 1e-2 else "ok")
mm = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
for _ in range(2):
    torch.mm(x, w.t(), out=mm)
torch.cuda.synchronize()
