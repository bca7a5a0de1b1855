import sys
import cutlass, cutlass.cute as cute, cutlass.utils as utils
import cutlass.utils.hopper_helpers as sm90_utils
BN = int(sys.argv[1])
@cute.jit
def f():
    row = utils.LayoutEnum.ROW_MAJOR
    ab_atom = cute.nvgpu.warpgroup.make_smem_layout_atom(
        sm90_utils.get_smem_layout_atom(row, cutlass.BFloat16, 64), cutlass.BFloat16)
    b = cute.tile_to_shape(ab_atom, (BN, 64, 8), order=(0, 1, 2))
    print(BN, cute.slice_(b, (None, None, 0)))
f()
