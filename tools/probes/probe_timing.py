"""The probes' one timing rule (tools/probes/*.py, torchrun): every rank runs `fn` at once."""
from __future__ import annotations


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
