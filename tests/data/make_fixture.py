"""Regenerate tiny.ptx / tiny.cubin: a small real CuTe DSL kernel compiled on CPU for sm_90a.

Run: python tests/data/make_fixture.py OUT_DIR   (needs nvidia-cutlass-dsl; no GPU)
tests/conftest.py runs it once per test session (fixture `tiny_dir`), so no binary is committed;
the ptxabi/resources/CLI tests then read real DSL output without importing cutlass themselves.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    out.mkdir(parents=True, exist_ok=True)
    dump = Path(tempfile.mkdtemp(prefix="codegen-fixture-"))
    # The DSL reads these when its env manager is built, i.e. at import: set them first.
    os.environ["CUTE_DSL_KEEP"] = "ptx,cubin"
    os.environ["CUTE_DSL_DUMP_DIR"] = str(dump)
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor

    @cute.kernel
    def scale_kernel(g_in: cute.Tensor, g_out: cute.Tensor, alpha: cutlass.Float32):
        smem = cutlass.memory.SmemAllocator()
        buf = smem.allocate_tensor(cutlass.Float32, cute.make_layout(128), 16)
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        i = bidx * 128 + tidx
        buf[tidx] = g_in[i] * alpha
        cute.arch.sync_threads()
        g_out[i] = buf[127 - tidx]

    @cute.jit
    def scale(g_in: cute.Tensor, g_out: cute.Tensor, alpha: cutlass.Float32):
        n = cute.size(g_in, mode=[0])
        scale_kernel(g_in, g_out, alpha).launch(grid=[n // 128, 1, 1], block=[128, 1, 1], smem=1024)

    n = cute.sym_int32(symbol="N")
    a = make_fake_compact_tensor(cutlass.Float32, (n,), assumed_align=16)
    b = make_fake_compact_tensor(cutlass.Float32, (n,), assumed_align=16)
    cute.compile(scale, a, b, cutlass.Float32(2.0), options="--gpu-arch sm_90a")
    found = {p.suffix: p for p in dump.rglob("*") if p.suffix in (".ptx", ".cubin")}
    if set(found) != {".ptx", ".cubin"}:
        print(f"expected a .ptx and a .cubin under {dump}, found {sorted(map(str, found.values()))}")
        return 1
    shutil.copyfile(found[".ptx"], out / "tiny.ptx")
    shutil.copyfile(found[".cubin"], out / "tiny.cubin")
    print(f"wrote {out / 'tiny.ptx'} and {out / 'tiny.cubin'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
