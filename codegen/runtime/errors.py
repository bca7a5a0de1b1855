"""Exceptions raised by the runtime; each message says what went wrong and what to do."""
from __future__ import annotations

from codegen.contract import ERROR_CODES, ERROR_RECORD_FIELDS


class RuntimeErrorBase(RuntimeError):
    """Base of every error the runtime raises on purpose."""


class CacheMissError(RuntimeErrorBase):
    """The cache has no valid entry for a variant; the message names the build command."""

    def __init__(self, variant: str, command: str, detail: str = ""):
        self.variant = variant
        self.command = command
        msg = f"no valid cached kernel for variant {variant}"
        if detail:
            msg += f" ({detail})"
        msg += f"; run: {command}"
        super().__init__(msg)


class InputError(ValueError):
    """A caller's argument is unusable; raised before any launch."""


class DriverError(RuntimeErrorBase):
    """A CUDA driver call returned an error."""

    def __init__(self, call: str, code: int, name: str, detail: str = ""):
        self.call, self.code, self.error_name = call, code, name
        super().__init__(f"{call} failed: {name} ({code})" + (f": {detail}" if detail else ""))


class KernelTimeoutError(RuntimeErrorBase):
    """A kernel's bounded spin-wait gave up; fields are the kernel's error record
    (contract.ERROR_RECORD_FIELDS, in that order)."""

    def __init__(self, variant: str, record_rank: int, record: list[int]):
        f = dict(zip(ERROR_RECORD_FIELDS, (int(v) for v in record)))
        code, rank, tile_m, tile_n = f["code"], f["rank"], f["tile_m"], f["tile_n"]
        peer, expected, seen, epoch = f["peer"], f["expected"], f["seen"], f["epoch"]
        self.variant = variant
        self.record_rank = record_rank  # whose error record held it
        self.code, self.rank, self.tile = code, rank, (tile_m, tile_n)
        self.peer, self.expected, self.seen, self.epoch = peer, expected, seen, epoch
        self.others: list[KernelTimeoutError] = []  # other ranks' records (set by check_errors)
        what = ERROR_CODES.get(code, f"unknown error code {code}")
        super().__init__(
            f"{variant}: rank {rank} {what}: tile (m={tile_m}, n={tile_n}) waited for peer {peer}, "
            f"expected >= {expected}, saw {seen}, epoch {epoch} "
            f"(error record of rank {record_rank}; the group's flags are now out of step: "
            f"call op.reset_errors() and re-create or reset the group; a peer that was late, "
            f"e.g. still compiling, looks the same: raise timeout_ms / CODEGEN_WAIT_TIMEOUT_MS)")
