"""Environment guard of every multi-GPU entry point: no NVLink multicast objects by default.

Creating NVLink multicast objects (the driver's multicast-create call, which torch's
symmetric-memory rendezvous, NCCL NVLS and NVSHMEM NVLS make on NVSwitch systems) can put the
shared GPUs of our machines out of service. So multi-GPU scripts and `SymmMemGroup` first call :func:`enforce_no_multicast`:

- it sets the three switches below with `setdefault` (before torch.distributed creates
  anything: torch reads TORCH_SYMM_MEM_DISABLE_MULTICAST at rendezvous, NCCL reads
  NCCL_NVLS_ENABLE at communicator creation, NVSHMEM reads NVSHMEM_DISABLE_NVLS at init), and
- refuses (MulticastSafetyError) when any of them is already set to a value that enables
  multicast, unless the caller explicitly allows multicast (a script's `--allow-multicast`
  flag, which must never be used on our machines).

Pure: no torch import, so scripts can call it before importing torch.distributed.
"""
from __future__ import annotations

import os
from collections.abc import MutableMapping

from codegen.env import MULTICAST_SAFE_ENV as SAFE_ENV
from codegen.env import multicast_disabled_by

ALLOW_FLAG_HELP = ("allow NVLink multicast objects (torch symmetric-memory multicast, NCCL NVLS, "
                   "NVSHMEM NVLS). NEVER use this on the project's machines: multicast objects "
                   "can put shared GPUs out of service")


class MulticastSafetyError(RuntimeError):
    """The environment would let torch / NCCL / NVSHMEM create NVLink multicast objects."""


def multicast_enabling_settings(environ: MutableMapping[str, str] | None = None) -> list[str]:
    """The switches of SAFE_ENV that are set to something other than their safe value.

    An unset switch is not listed (:func:`apply_safe_defaults` fills it in).
    """
    env = os.environ if environ is None else environ
    bad = []
    for name, safe in SAFE_ENV:
        if name in env and env[name].strip() != safe:
            bad.append(f"{name}={env[name]!r} (needs {safe!r})")
    return bad


def apply_safe_defaults(environ: MutableMapping[str, str] | None = None) -> None:
    """setdefault every SAFE_ENV switch to its safe value (an explicit value is kept)."""
    env = os.environ if environ is None else environ
    for name, safe in SAFE_ENV:
        env.setdefault(name, safe)


def enforce_no_multicast(allow_multicast: bool = False,
                         environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Make the environment multicast-free, or refuse; returns the enabling settings seen.

    Without `allow_multicast`: apply the safe defaults, then raise MulticastSafetyError if any
    switch still enables multicast. With it: change nothing and just report (the caller's
    system decides; only for systems where multicast objects are allowed), unless the
    project's own switch disables multicast (CODEGEN_DISABLE_MULTICAST, fail-closed): that
    implies every SAFE_ENV switch, so they are then set to their safe values, overriding.
    """
    env = os.environ if environ is None else environ
    if allow_multicast:
        if (multicast_disabled_by(env) or "").startswith("CODEGEN_DISABLE_MULTICAST"):
            for name, safe in SAFE_ENV:
                env[name] = safe
        return multicast_enabling_settings(env)
    apply_safe_defaults(env)
    bad = multicast_enabling_settings(env)
    if bad:
        raise MulticastSafetyError(
            "refusing to run: the environment enables NVLink multicast: " + ", ".join(bad)
            + ". Unset these (or set the safe values), or pass --allow-multicast / "
              "allow_multicast=True only on a system where multicast objects are allowed "
              "(never on the project's machines).")
    return []


def init_torchrun(allow_multicast: bool = False, nccl_timeout_s: float | None = None):
    """The start of every torchrun script: refuse multicast, then one GPU per process and NCCL.

    Raises MulticastSafetyError before torch.distributed is imported (NCCL reads
    NCCL_NVLS_ENABLE when it creates a communicator). Returns (torch, dist, device).
    """
    enforce_no_multicast(allow_multicast)
    from datetime import timedelta

    import torch
    import torch.distributed as dist

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    kwargs = {"timeout": timedelta(seconds=nccl_timeout_s)} if nccl_timeout_s else {}
    dist.init_process_group("nccl", device_id=device, **kwargs)
    return torch, dist, device


def run_torchrun(body, allow_multicast: bool = False, nccl_timeout_s: float | None = None) -> int:
    """Run `body(torch, dist, device) -> exit code` in a torchrun process; 3 on a refusal."""
    import sys

    try:
        torch, dist, device = init_torchrun(allow_multicast, nccl_timeout_s)
    except MulticastSafetyError as exc:
        print(exc, file=sys.stderr)
        return 3
    try:
        return body(torch, dist, device)
    finally:
        dist.destroy_process_group()
