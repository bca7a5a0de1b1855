"""The runtime needs only torch, numpy and cuda-python: never cutlass or jinja2 (CPU only)."""
import ast
import subprocess
import sys
from pathlib import Path

RUNTIME = Path(__file__).resolve().parent.parent / "codegen" / "runtime"
FORBIDDEN = ("cutlass", "jinja2")


def _imported_modules(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            yield from (a.value for a in node.args if isinstance(a, ast.Constant))


def test_no_forbidden_imports_in_source():
    files = sorted(RUNTIME.rglob("*.py"))
    assert files
    bad = [(f.name, m) for f in files for m in _imported_modules(f)
           if m.split(".")[0] in FORBIDDEN]
    assert not bad, bad


def test_no_forbidden_module_loaded_at_runtime():
    code = ("import sys, codegen.runtime.op, codegen.runtime.group, codegen.runtime.kernel, "
            "codegen.runtime.tma\n"
            f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
            "assert not bad, bad\n")
    root = RUNTIME.parent.parent
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr


def test_no_multicast_object_creation():
    text = "\n".join(p.read_text() for p in RUNTIME.rglob("*.py"))
    for api in ("cuMulticastCreate", "cuMulticastBindMem", "cuMulticastAddDevice"):
        assert api not in text
