#!/usr/bin/env python3
"""Remote TMA store rate by box shape (sm_90a, a probe, torchrun): how fast do TMA tile stores
into the peer's memory move data, by box width (the bytes each box row writes contiguously)?

Why: the pushing tile kernels store their partials to the owners with 128 x 64 bf16 boxes (128
bytes per row, 128-byte swizzle; 128 x 32 at BN 224), and at K = 768 their exchange moves
~255 GB/s where SM stores into the peer reach ~367 GB/s (tools/probes/link_push_pull.py).
Every rank pushes into the other's symmetric buffer at once (every link direction busy),
132 CTAs, one thread each, up to 4 bulk groups in flight per CTA (the push box also with 1, 2
and 8); the same into its own buffer for reference; every run twice, the second pass in the
reverse order. Prints GB/s per GPU (1e9 B/s), slowest rank.

Build and run: tools/probes/README.md (`tma_push_probe`).
"""
from __future__ import annotations

import ctypes
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_common import (cubin_main, load_kernels, peer_buffer, report_and_close,  # noqa: E402
                          settle, slowest_us)

ROWS, COLS = 8192, 7168            # bf16: the workspace of M = 16384 at TP2, 117 MB
#: (box cols, box rows, swizzle): the kernels' two push boxes first, then wider rows
BOXES = ((64, 128, "128B"), (32, 128, "64B"), (64, 128, "none"), (128, 128, "none"),
         (256, 64, "none"), (256, 128, "none"))


def main(argv=None) -> int:
    return cubin_main(argv, __doc__, _run)


def _run(cubin: Path, torch, dist, device) -> int:
    from codegen.runtime.driver import call, cuda
    from codegen.runtime.tma import encode_bf16_2d

    buf, peer_buf = peer_buffer(torch, dist, device, ROWS * COLS, torch.bfloat16)
    settle(torch, dist, device)
    module, by_name = load_kernels(cubin, device, ("push_boxes", "push_boxes_d1", "push_boxes_d2",
                                                   "push_boxes_d8"), 65536)
    funcs = {4: by_name["push_boxes"], 1: by_name["push_boxes_d1"], 2: by_name["push_boxes_d2"],
             8: by_name["push_boxes_d8"]}
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    stream = torch.cuda.current_stream(device)
    nbytes = ROWS * COLS * 2
    lines = []
    runs = [(box, 4, target) for box in BOXES for target in ("peer", "local")]
    # the kernels' push box (64 x 128, 128B) with 1, 2 and 8 groups in flight
    runs += [(BOXES[0], depth, "peer") for depth in (1, 2, 8)]
    # then every run again in the reverse order: an effect of the order (clocks, link or TLB
    # warm-up) shows as a difference between the two passes
    runs += runs[::-1]
    for (cols, rows, swz), depth, target in runs:
        ptr = peer_buf.data_ptr() if target == "peer" else buf.data_ptr()
        func = funcs[depth]
        desc = encode_bf16_2d(ptr, ROWS, COLS, COLS * 2, (cols, rows), swz)
        d = torch.tensor(list(desc), dtype=torch.uint8, device=device)
        args = ((d.data_ptr(), cols, rows, COLS // cols, ROWS // rows, 1),
                (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                 ctypes.c_int))

        def launch():
            call("cuLaunchKernel", func, sms, 1, 1, 32, 1, 1, cols * rows * 2,
                 cuda.CUstream(stream.cuda_stream), args, 0)
        us = slowest_us(torch, dist, device, launch, reps=5, stream=stream)
        lines.append(f"box {cols} x {rows} ({cols * 2} B rows, swizzle {swz}), <= {depth} "
                     f"groups in flight: {target} {nbytes / (us * 1e3):.0f} GB/s")
        dist.barrier(device_ids=[device.index])
    return report_and_close(
        f"TMA stores of a [{ROWS}, {COLS}] bf16 tensor, {sms} CTAs x 1 thread, every rank at "
        "once, slowest rank:", lines, module, torch, dist, device)


if __name__ == "__main__":
    sys.exit(main())
