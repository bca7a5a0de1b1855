"""A CPU stand-in for GemmRsAr: its shapes and dispatch questions, the math done by torch.mm.

Each call computes this rank's partial x @ W^T in fp32 (rounded to bf16, like the kernel's
output); for RS it returns this rank's rows of the partial padded with zero rows to a multiple
of tp. There are no peers: it traces and dispatches like the fused op, it does not reduce.
"""
from __future__ import annotations

import torch

from codegen import contract


class StandInOp:
    group = None

    def __init__(self, max_M: int, N: int, K: int, mode: str, *, tp: int = 1, rank: int = 0,
                 min_m: int = 128, transport: str = "unicast"):
        self.max_M, self.N, self.K, self.mode, self.tp, self.rank = max_M, N, K, mode, tp, rank
        self.min_m, self.transport = min_m, transport
        self.calls: list[int] = []  # M of every call
        self.prepared = False

    @property
    def local_ranks(self) -> tuple[int, ...]:
        return (self.rank,)

    def out_shape(self, M: int) -> tuple[int, int]:
        return contract.out_shape(self.mode, M, self.N, self.tp)

    def can_run(self, weight) -> bool:
        return (isinstance(weight, torch.Tensor) and weight.dtype == torch.bfloat16
                and tuple(weight.shape) == (self.N, self.K) and weight.is_contiguous())

    def should_run(self, x) -> bool:
        return (isinstance(x, torch.Tensor) and x.dim() == 2 and 1 <= x.shape[0] <= self.max_M
                and x.shape[0] >= self.min_m)

    def prepare(self, Ms=None) -> list[str]:
        self.prepared = True
        return []

    def __call__(self, rank: int, x: torch.Tensor, weight: torch.Tensor, out=None) -> torch.Tensor:
        assert rank == self.rank, (rank, self.rank)
        assert x.dtype == weight.dtype == torch.bfloat16 and x.shape[1] == self.K
        self.calls.append(x.shape[0])
        part = x.float() @ weight.float().t()
        if self.mode == "rs":
            c = contract.chunk(x.shape[0], self.tp)
            padded = part.new_zeros(c * self.tp, self.N)
            padded[: x.shape[0]] = part
            part = padded[rank * c:(rank + 1) * c]
        return part.to(torch.bfloat16)
