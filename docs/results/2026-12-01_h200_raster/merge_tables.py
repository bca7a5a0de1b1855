"""Re-pick mode-none table rows from call6's two sweeps (run once, here, on the CPU): the rule
is tools/merge_tuning.py's (a candidate scores the lower over the two sweeps of its worse ratio
to torch.mm, warm / cold; a row changes only when the best beats its choice by more than 2%).
Reads ../2026-11-30_late_tables/tuning/, writes ./tuning/ (the rs/ar tables copied unchanged).
Until 2026-12-01 (third session) this script carried its own copy of that rule; the tool
reproduces the rows it wrote exactly."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "tools"))
import merge_tuning  # noqa: E402

if __name__ == "__main__":
    sys.exit(merge_tuning.main([
        "--base", str(HERE.parent / "2026-11-30_late_tables"),
        "--sweep", str(HERE / "call6" / "sweep_1.json"),
        "--sweep", str(HERE / "call6" / "sweep_2.json"),
        "--out", str(HERE)]))
