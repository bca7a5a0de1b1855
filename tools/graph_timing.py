"""CUDA-graph replay timing shared by the benchmark scripts (imported, never run)."""
from __future__ import annotations

import statistics


def graph_time_us(fn, iters: int, replays: int, warmup: int = 3) -> float:
    """Median time of one `fn()` in microseconds, by CUDA-graph replay of `iters` calls.

    Two eager calls first (kernels load, the allocator and NCCL settle), then `iters` calls
    captured in one graph, `warmup` replays, and the median over `replays` timed replays.
    """
    import torch

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(iters):
            fn()
    for _ in range(warmup):
        graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / iters)
    del graph
    return statistics.median(times)
