#!/usr/bin/env python3
"""Do remote TMA stores hold up the same SM's TMA loads? (sm_90a, a probe, torchrun.)

Why: inside the fused tile kernels at K = 768 the GEMM runs 1.6x-2.5x slower than alone while the
NVLink carries ~255 GB/s of the ~360 GB/s that TMA pushes can reach
(tools/probes/tma_push_probe.py). The mainloop's loads and the epilogue's pushes go through the
same SM's TMA unit; if a store waiting on the link holds up the loads queued behind it, the GEMM
is paced by the link's per-SM share.

Per CTA (132, one per SM): one lane streams TMA tile loads (64 x 128 bf16 boxes, 4 stages, one
mbarrier each, from a 14.7 MB local tensor that stays in L2) and times them; another lane keeps
issuing TMA stores of a 16 KB box meanwhile: into the peer's buffer, into a local buffer, or
none. Every rank at once (both link directions busy). Prints the loads' aggregate rate per GPU
(median CTA), slowest rank.

Build and run: tools/probes/README.md (`tma_hol_probe`).
"""
from __future__ import annotations

import ctypes
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_common import (cubin_main, load_kernels, peer_buffer, report_and_close,  # noqa: E402
                          settle)

COLS = 7168
LOAD_ROWS, STORE_ROWS = 1024, 8192      # bf16: 14.7 MB (L2-resident), 117 MB
BOX = (64, 128)                          # the mainloop's / push box: 16 KB, 128B swizzle
N_LOADS = 2000                           # per CTA: 32 MB


def main(argv=None) -> int:
    return cubin_main(argv, __doc__, _run)


def _run(cubin: Path, torch, dist, device) -> int:
    from codegen.runtime.driver import call, cuda
    from codegen.runtime.tma import encode_bf16_2d

    tp = dist.get_world_size()
    buf, peer_buf = peer_buffer(torch, dist, device, STORE_ROWS * COLS, torch.bfloat16)
    local_store = torch.empty(STORE_ROWS * COLS, dtype=torch.bfloat16, device=device)
    load_src = torch.randn(LOAD_ROWS * COLS, device=device).to(torch.bfloat16)
    settle(torch, dist, device)
    smem = 5 * BOX[0] * BOX[1] * 2
    module, funcs = load_kernels(cubin, device, ("loads_with_stores",), smem)
    func = funcs["loads_with_stores"]
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    stream = torch.cuda.current_stream(device)

    def desc_of(ptr, rows):
        d = encode_bf16_2d(ptr, rows, COLS, COLS * 2, BOX, "128B")
        return torch.tensor(list(d), dtype=torch.uint8, device=device)

    load_desc = desc_of(load_src.data_ptr(), LOAD_ROWS)
    stores = {"no stores": None, "stores into the peer": desc_of(peer_buf.data_ptr(), STORE_ROWS),
              "stores into local memory": desc_of(local_store.data_ptr(), STORE_ROWS)}
    out = torch.zeros(sms, dtype=torch.int64, device=device)
    lines = []
    for rep in range(2):
        for name, sdesc in stores.items():
            args = ((load_desc.data_ptr(), COLS // BOX[0], LOAD_ROWS // BOX[1], N_LOADS,
                     0 if sdesc is None else sdesc.data_ptr(), COLS // BOX[0],
                     STORE_ROWS // BOX[1], out.data_ptr()),
                    (ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                     ctypes.c_int, ctypes.c_int, ctypes.c_void_p))
            for _ in range(2):
                call("cuLaunchKernel", func, sms, 1, 1, 64, 1, 1, smem,
                     cuda.CUstream(stream.cuda_stream), args, 0)
                settle(torch, dist, device)
            med_ns = statistics.median(int(v) for v in out.tolist())
            every = [None] * tp
            dist.all_gather_object(every, med_ns)
            gbps = N_LOADS * BOX[0] * BOX[1] * 2 * sms / max(every)
            lines.append(f"pass {rep + 1}, {name}: loads {gbps:.0f} GB/s "
                         f"({max(every) / 1e3:.0f} us per CTA)")
    return report_and_close(
        f"TMA loads ({N_LOADS} x 16 KB per CTA, {sms} CTAs, 4 stages) while another lane of the "
        "SM issues 16 KB TMA stores, every rank at once, median CTA, slowest rank:", lines,
        module, torch, dist, device)


if __name__ == "__main__":
    sys.exit(main())
