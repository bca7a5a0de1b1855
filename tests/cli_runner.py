"""``codegen`` over the fake compile step and the test templates, in a process of its own (for
the tests that kill, limit or pipe a build): ``python cli_runner.py TMPL_DIR PKG_DIR ARGS...``."""

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # fake_compile, for the spawned workers

from codegen import build as buildmod  # noqa: E402
from codegen.build import KeyContext  # noqa: E402
from codegen.cli import main  # noqa: E402

FAKE = "fake_compile:compile_source"

if __name__ == "__main__":
    tmpl_dir, pkg_dir = Path(sys.argv[1]), Path(sys.argv[2])
    orig_ctx = KeyContext.current
    buildmod.build = functools.partial(buildmod.build, compile_fn=FAKE, templates_dir=tmpl_dir,
                                       package_dir=pkg_dir)
    KeyContext.current = classmethod(lambda cls, *a, **k: orig_ctx(FAKE, tmpl_dir, pkg_dir))
    sys.exit(main(sys.argv[3:]))
