"""The push table of a rank: the TMA descriptors the sm_90a unicast tile epilogue stores through.

Each rank's epilogue stores its partial rows of owner o's row chunk straight into o's workspace,
slot [rank] (contract.push_slot_rows / push_descriptor_specs). The 2 x tp descriptors (one per
parity and owner) depend only on the group's buffers, so a group encodes them once, at
construction, into a device buffer (`push_tmap_ptr`); nothing is encoded or copied per call
(also not under graph capture).
"""
from __future__ import annotations

from codegen import contract

from .tma import encode_bf16_2d


def push_descriptors(ws_ptrs, rank: int, rows_pad: int, N: int, encode=None) -> bytes:
    """The table's bytes: one family of 2 x tp descriptors (TMA_DESC_BYTES each, order
    [parity * tp + owner]) per contract.PUSH_BOXES entry, family after family."""
    encode = encode or encode_bf16_2d
    specs = contract.push_descriptor_specs(ws_ptrs, rank, rows_pad, N)
    out = b"".join(encode(ptr, rows, N, N * 2, box, swizzle)
                   for box, swizzle in contract.PUSH_BOXES for ptr, rows in specs)
    assert len(out) == len(contract.PUSH_BOXES) * 2 * len(ws_ptrs) * contract.TMA_DESC_BYTES
    return out


def push_table(ws_ptrs, rank: int, rows_pad: int, N: int, device):
    """The table on `device` (uint8 tensor, TMA_DESC_ALIGN-aligned). The copy is synchronous:
    the caller's next kernel, on any stream, sees the bytes."""
    import torch

    blob = push_descriptors(ws_ptrs, rank, rows_pad, N)
    t = torch.frombuffer(bytearray(blob), dtype=torch.uint8).to(device)
    torch.cuda.synchronize(device)
    if t.data_ptr() % contract.TMA_DESC_ALIGN:
        raise RuntimeError(f"push table at {t.data_ptr():#x} is not {contract.TMA_DESC_ALIGN}-byte "
                           f"aligned (the TMA unit needs it); torch's allocator should align it")
    return t
