"""Insert freshly swept rows into the existing tuning tables (a fresh row replaces the old row
of the same M; every other old row kept)."""
import json, sys
from pathlib import Path
new_dir, dst_dir = Path(sys.argv[1]), Path(sys.argv[2])
from codegen.runtime.tuning import TuningTable
for p in sorted(new_dir.glob("*.json")):
    new = json.loads(p.read_text())
    dst = dst_dir / p.name
    if dst.exists():
        old = json.loads(dst.read_text())
        fresh = {r["M"] for r in new["rows"]}
        rows = [r for r in old["rows"] if r["M"] not in fresh] + new["rows"]
        new["rows"] = sorted(rows, key=lambda r: r["M"])
        new["command"] = new["command"] + f" (rows at other M kept from: {old['command']})"
    new = TuningTable.from_dict(new, derive_crossover=True).to_dict()
    dst.write_text(json.dumps(new, indent=1))
    print("merged", p.name, [(r["M"], r["schedule"], r["bn"], r["cta_group"]) for r in new["rows"]])
