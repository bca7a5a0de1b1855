#!/usr/bin/env python3
"""How many clusters of a cluster kernel the GPU holds at once (a probe; needs a GPU).

For each named variant (default: every mode-none kernel with a cluster: the tile schedule's
cta_group 2 and the splitk kernels), the driver's cuOccupancyMaxActiveClusters at the kernel's
block, dynamic shared memory and cluster size, against the SMs / cluster size a persistent grid
assumes. A cluster must sit in one GPC, so with one CTA per SM the answer can be below SMs /
cluster size.

    PYTHONPATH=. python3 tools/probes/cluster_occupancy.py [--variants NAME,...]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from codegen.spec import Variant, deployment_matrix  # noqa: E402


def cluster_variants() -> list[Variant]:
    return [v for v in deployment_matrix(8, ["sm_90a"], modes=["none"])
            if v.schedule == "splitk" or (v.schedule == "tile" and v.cta_group == 2)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default=None, help="comma-separated variant names")
    a = ap.parse_args(argv)
    variants = ([Variant.parse(n) for n in a.variants.split(",")] if a.variants
                else cluster_variants())

    import torch

    from codegen.runtime import GemmRsAr
    from codegen.runtime.driver import call

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    stream = torch.cuda.current_stream().cuda_stream
    for v in variants:
        op = GemmRsAr(64, 14336, 4096, "none", schedule=v.schedule, bn=v.bn, cta_group=v.cta_group)
        kern = op.kernel(v)
        size = kern.cluster[0] * kern.cluster[1] * kern.cluster[2]
        cfg = kern.launch_config(sms // size * size, stream)
        n = call("cuOccupancyMaxActiveClusters", kern.function, cfg)
        print(f"{v.name}: cluster {size}, smem {kern.dynamic_smem} B, max active clusters {n} "
              f"({n * size} CTAs; SMs / cluster = {sms // size})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
