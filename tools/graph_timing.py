"""CUDA-graph replay timing shared by the benchmark scripts (imported, never run)."""
from __future__ import annotations

import itertools
import math
import statistics


def captured_graph(fn, iters: int, warmup: int = 3):
    """A CUDA graph of `iters` calls of `fn`, replayed `warmup` times: two eager calls first
    on a side stream (kernels load, the allocator and NCCL settle), then the capture."""
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
    return graph


def graph_time_us(fn, iters: int, replays: int, warmup: int = 3) -> float:
    """Median time of one `fn()` in microseconds, by CUDA-graph replay of `iters` calls
    (captured_graph), the median over `replays` timed replays."""
    graph = captured_graph(fn, iters, warmup)
    t = replay_time_us(graph, iters, replays)
    del graph
    return t


def replay_time_us(graph, iters: int, replays: int) -> float:
    """Median over `replays` CUDA-event-timed replays of `graph` (of `iters` calls) of the time
    per call, in microseconds."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(replays):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / iters)
    return statistics.median(times)


def interleaved_medians(calls: dict, iters: int, replays: int, rounds: int, rng,
                        timer=None) -> dict:
    """{key: median us} of every `calls[key]()` timed `rounds` times (graph_time_us), each
    round in a fresh random order (`rng.shuffle`). Timing paths one after another in a fixed
    order lets the GPU's state (clock and power of the last milliseconds) rank two close paths
    by when they ran: on one H200 a kernel read 42.6 and 49.5 us in one sequential sweep."""
    timer = timer or graph_time_us
    samples = {k: [] for k in calls}
    keys = list(calls)
    for _ in range(max(1, rounds)):
        rng.shuffle(keys)
        for k in keys:
            samples[k].append(timer(calls[k], iters, replays))
    return {k: statistics.median(v) for k, v in samples.items()}


def after_elementwise(fn, x):
    """fn preceded by an in-place elementwise kernel writing x (x *= 1, exact in bf16): the
    norm that precedes a projection in a model, so a timed call never directly follows a GEMM
    (the benchmarks' --after-elementwise)."""
    def call():
        x.mul_(1.0)
        return fn()
    return call


def weight_copies(w, l2_bytes: int, factor: float = 2.0) -> list:
    """`w` and enough copies of it that cycling through them keeps each call's weight out of
    the L2 (the other copies read between two uses of one span `factor` x the L2): the cold
    regime of a model whose other layers' weights pass through the L2 between two uses of this
    one. At decode sizes the weight is most of the bytes, and a single W of 11-33 MB stays in
    the H200's 50 MB L2 across graph replays, so one copy times an L2-resident weight."""
    n = 1 + math.ceil(factor * l2_bytes / max(1, w.numel() * w.element_size()))
    return [w] + [w.clone() for _ in range(n - 1)]


def rotating(items: list):
    """A function returning items[0], items[1], ... cyclically: the weight of each call a graph
    captures (so the captured calls read the copies in turn)."""
    it = itertools.cycle(items)
    return lambda: next(it)


def weight_of(w):
    """The weight of one call: `w` itself, or `w()` where `w` is a rotating() function of copies
    (a benchmark's --cold-weights)."""
    return w() if callable(w) else w
