"""`codegen check-deploy` on the built cache (CODEGEN_CACHE_DIR, else generated/): every kernel of
the manifest that is of this GPU's arch loads (cuLibraryLoadData, the kernel by its symbol, the
smem attribute). Run with -s to see the timing lines; skips without a GPU or a built manifest."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegen import env
from codegen.entry_format import manifest_paths
from gpu_common import requires_gpu

ROOT = Path(__file__).resolve().parents[2]


def check_deploy(*argv) -> tuple[int, str, str]:
    """`codegen check-deploy *argv` in a fresh process, as an operator runs it."""
    proc = subprocess.run([sys.executable, "-m", "codegen.cli", "check-deploy", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return proc.returncode, proc.stdout, proc.stderr


def _manifests(name: str | None) -> list[str]:
    root = env.load().cache_dir
    if not manifest_paths(root):
        pytest.skip(f"no built cache under {root} (codegen build --tp 8 --arch sm_90a on a build machine)")
    if name is not None and not (root / "manifests" / name).is_file():
        pytest.skip(f"no manifest {name} under {root / 'manifests'}")
    return [] if name is None else ["--manifest", name]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("manifest", [None, "tp8.json"], ids=["newest", "tp8"])
def test_every_kernel_of_the_manifest_loads(manifest):
    args = _manifests(manifest)
    rc, out, err = check_deploy(*args, "--json")
    doc = json.loads(out)
    if any("names no kernel for this GPU" in e for e in doc["errors"]):
        pytest.skip(doc["errors"][0])
    assert rc == 0, (err, doc["errors"], [e for e in doc["entries"] if e["status"] != "loaded"][:5])
    ours = [e for e in doc["entries"] if e["status"] != "skipped"]
    assert ours and all(e["status"] == "loaded" for e in ours)
    rc, text, err = check_deploy(*args)  # the operator's view, printed for the record
    print(f"\n{text}")
    print(f"[{manifest or 'newest'}] loaded {len(ours)} kernels ({doc['gpu']}) in "
          f"{doc['load_ms']:.1f} ms wall (target: < 100 ms for TP8 sm_90a)")
    assert rc == 0, err
