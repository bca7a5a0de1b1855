"""tools/bench_host_overhead.py without a GPU: its arguments and table (the timing needs GPUs)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import bench_host_overhead as tool  # noqa: E402


def test_defaults():
    a = tool.parse_args([])
    assert a.ms == [16, 128, 1024] and a.k == 768 and a.n == 7168 and a.modes == "ar,rs"


def test_table_has_one_row_per_measurement_and_the_ratio():
    row = {"mode": "ar", "M": 16, "fused_host_us": 20.0, "unfused_host_us": 80.0,
           "host_ratio": 0.25, "fused_eager_us": 21.5, "unfused_eager_us": 70.0,
           "fused_kernel_eager_us": None, "fused_graph_us": 8.0, "unfused_graph_us": 12.0}
    lines = tool.markdown([row, dict(row, mode="rs")]).splitlines()
    assert len(lines) == 4 and "host_ratio" in lines[0]
    assert lines[2].startswith("| ar | 16 | 20.0 | 80.0 | 0.25 |") and "| - |" in lines[2]
