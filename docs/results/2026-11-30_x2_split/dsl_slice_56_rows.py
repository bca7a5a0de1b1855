import cutlass, cutlass.cute as cute, cutlass.utils as utils
import cutlass.utils.hopper_helpers as sm90_utils
@cute.jit
def f():
    row = utils.LayoutEnum.ROW_MAJOR
    ab_atom = cute.nvgpu.warpgroup.make_smem_layout_atom(
        sm90_utils.get_smem_layout_atom(row, cutlass.BFloat16, 64), cutlass.BFloat16)
    for BN in (64, 56):
        b = cute.tile_to_shape(ab_atom, (BN, 64, 8), order=(0, 1, 2))
        print(BN, cute.slice_(b, (None, None, 0)))
f()
# CuTe DSL 4.x on this machine (CPU, no GPU): prints the BN 64 slice, then the process aborts
# ("Fatal Python error: Aborted" in _cute_ops_gen.slice) on the BN 56 one: the staged
# 128B-swizzled K-major layout S<3,4,3> o ((8,7),(64,1),(1,8)) cannot be sliced by stage.
# This is why the tile schedule has no BN 56 (128 tiles of N 7168, one per SM) yet.
