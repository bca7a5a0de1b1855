#!/usr/bin/env python3
"""Which driver calls a global-mode CUDA-graph capture refuses on this host (a probe, not a
test; needs a GPU and a kernel cache: CODEGEN_CACHE_DIR).

An op's first call may come inside a capture (tests/gpu/test_cold_capture.py): it loads a
cubin and, for the streamk schedule, allocates and zeroes its stream's buffers. The runtime
does both with the thread's capture mode relaxed (driver.capture_relaxed). This probe does
each inside `torch.cuda.graph` (capture_error_mode "global", torch's default) without it and
prints, per step, whether the driver refused it and whether the capture survived, so the
relaxed mode is known to be needed (or not) on this host, not assumed.
"""
from __future__ import annotations

import json
import sys

import torch


def _an_entry():
    """The cache entry of a mode-none kernel (loaded here once by its op, outside any capture);
    a fresh LoadedKernel of it loads the cubin again."""
    from codegen.runtime import GemmRsAr

    op = GemmRsAr(1024, 4096, 2048, "none")
    x, w = torch.randn(256, 2048, device="cuda").bfloat16(), torch.randn(4096, 2048,
                                                                         device="cuda").bfloat16()
    op(0, x, w)
    torch.cuda.synchronize()
    name = op.last_launch[0]["variant"]
    return op._kernels[name].entry


def _step(name, fn, relaxed):
    from codegen.runtime.driver import capture_relaxed

    g = torch.cuda.CUDAGraph()
    out = {"step": name, "relaxed": relaxed}
    try:
        with torch.cuda.graph(g):
            try:
                if relaxed:
                    with capture_relaxed():
                        fn()
                else:
                    fn()
                out["call"] = "ok"
            except Exception as exc:   # the driver's refusal, if any
                out["call"] = f"{type(exc).__name__}: {str(exc)[:160]}"
            torch.empty(1, device="cuda").add_(1)   # something to capture
        g.replay()
        torch.cuda.synchronize()
        out["capture"] = "ok"
    except Exception as exc:
        out["capture"] = f"{type(exc).__name__}: {str(exc)[:160]}"
        torch.cuda.synchronize()
    print(json.dumps(out), flush=True)
    return out


def main() -> int:
    from codegen.runtime.group import _dedicated_stream
    from codegen.runtime.kernel import LoadedKernel

    entry = _an_entry()
    side = _dedicated_stream(torch.cuda.current_device())

    def load():
        LoadedKernel(entry, torch.cuda.current_device())._load_relaxed()

    def alloc():
        with torch.cuda.stream(side):
            t = torch.zeros(64 << 20, dtype=torch.int8, device="cuda")   # 64 MB, past the cache
        side.synchronize()
        del t

    results = [_step(n, f, r) for r in (False, True) for n, f in (("load", load),
                                                                  ("alloc", alloc))]
    return 0 if all(r["capture"] == "ok" for r in results if r["relaxed"]) else 1


if __name__ == "__main__":
    sys.exit(main())
