"""Run the dispatched mode-none op a few times at one (M, K), for ncu (a probe, not a test);
argv: M K [--with-torch]."""
import sys

import torch

from codegen.runtime.op import GemmRsAr

M, K, N = int(sys.argv[1]), int(sys.argv[2]), 7168
x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
op = GemmRsAr(M, N, K, "none")
for _ in range(3):
    op(0, x, w, out=out)
if len(sys.argv) > 3 and sys.argv[3] == "--with-torch":   # torch.mm (cuBLAS) three times too
    ref = torch.empty_like(out)
    for _ in range(3):
        torch.mm(x, w.t(), out=ref)
torch.cuda.synchronize()
print(op.variant(M).name, "relerr", float((out.float() - x.float() @ w.float().t()).norm()
                                          / (x.float() @ w.float().t()).norm()))
