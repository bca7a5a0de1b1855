"""What the torchrun probes under tools/probes/ share: the start, the peer buffer, the cubin
kernels, and one timing rule (every rank runs the timed calls at once)."""
from __future__ import annotations

import sys
from pathlib import Path


def cubin_main(argv, doc: str, run) -> int:
    """A probe's main: one argument, the cubin; `run(cubin, torch, dist, device)` under
    symm_env.run_torchrun (which refuses a multicast-enabling environment first)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(doc, file=sys.stderr)
        return 2
    from codegen.runtime.symm_env import run_torchrun

    return run_torchrun(lambda torch, dist, device: run(Path(argv[0]), torch, dist, device),
                        False, 300)


def peer_buffer(torch, dist, device, numel: int, dtype):
    """(this rank's torch symmetric buffer, the next rank's same buffer as a local view)."""
    import torch.distributed._symmetric_memory as symm

    from codegen.runtime.symm_group import _rendezvous

    buf = symm.empty(numel, dtype=dtype, device=device)
    handle = _rendezvous(symm, buf, dist.group.WORLD.group_name)
    peer = (dist.get_rank() + 1) % dist.get_world_size()
    return buf, handle.get_buffer(peer, (numel,), dtype)


def load_kernels(cubin: Path, device, names, smem_bytes: int):
    """(module, {name: CUfunction}) of a cubin's kernels, each allowed `smem_bytes` of dynamic
    shared memory; cuModuleUnload(module) when done."""
    from codegen.runtime.driver import call, cuda, ensure_context

    ensure_context(device.index)
    module = call("cuModuleLoadData", cubin.read_bytes())
    funcs = {}
    for name in names:
        funcs[name] = call("cuModuleGetFunction", module, name.encode())
        call("cuFuncSetAttribute", funcs[name],
             cuda.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem_bytes)
    return module, funcs


def settle(torch, dist, device) -> None:
    """This rank's work done, then every rank's (before a buffer is read, reused or freed)."""
    torch.cuda.synchronize(device)
    dist.barrier(device_ids=[device.index])


def slowest_us(torch, dist, device, fn, reps: int, warmup: int = 2, stream=None) -> float:
    """Microseconds per call of `fn` on the slowest rank: `warmup` untimed calls, a barrier,
    then `reps` calls between two CUDA events on `stream` (default: the current one)."""
    stream = stream or torch.cuda.current_stream(device)
    for _ in range(warmup):
        fn()
    settle(torch, dist, device)
    t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0.record(stream)
    for _ in range(reps):
        fn()
    t1.record(stream)
    torch.cuda.synchronize(device)
    every = [None] * dist.get_world_size()
    dist.all_gather_object(every, t0.elapsed_time(t1) * 1e3 / reps)
    return max(every)


def report_and_close(header: str, lines, module, torch, dist, device) -> int:
    """Rank 0 prints `header` and `lines`; every rank unloads the cubin module and settles
    (no peer still writes this rank's buffer when the caller frees it). Returns 0."""
    from codegen.runtime.driver import call

    if dist.get_rank() == 0:
        print(header + "\n  " + "\n  ".join(lines), flush=True)
    call("cuModuleUnload", module)
    settle(torch, dist, device)
    return 0
