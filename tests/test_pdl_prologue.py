"""The build's check that a kernel launched with programmatic serialization waits for the
previous grid before touching global memory (codegen.compile.check_pdl_prologue), on PTX text."""
import pytest

from codegen.compile import CompileError, check_pdl_prologue

HEAD = ".visible .entry k(\n.param .u64 k_param_0\n)\n{\n\tld.param.u64 \t%rd1, [k_param_0];\n" \
       "\tprefetch.tensormap \t[%rd1];\n\tmbarrier.init.shared::cta.b64 \t[%r1], 1;\n" \
       "\tld.shared.u32 \t%r2, [%r3];\n"
WAIT = "\tgriddepcontrol.wait;\n"


def test_wait_before_every_global_access_passes():
    check_pdl_prologue(HEAD + WAIT + "\tld.global.u32 \t%r4, [%rd2];\n}\n", {"pdl": True})


@pytest.mark.parametrize("access", [
    "\tld.global.u32 \t%r4, [%rd2];\n",
    "\tld.relaxed.sys.u64 \t%rd4, [%rd2];\n",                   # a generic address
    "\t@%p1 st.global.v4.u32 \t[%rd2], {%r1, %r2, %r3, %r4};\n",
    "\tatom.add.u64 \t%rd4, [%rd2], 1;\n",
    "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];\n",
    "\tmultimem.ld_reduce.relaxed.sys.global.add.v4.bf16x2 {%r1, %r2, %r3, %r4}, [%rd2];\n",
])
def test_global_access_before_the_wait_is_refused(access):
    with pytest.raises(CompileError, match="before griddepcontrol.wait"):
        check_pdl_prologue(HEAD + access + WAIT + "}\n", {"pdl": True})


def test_pdl_without_a_wait_is_refused_and_a_plain_kernel_is_not_checked():
    body = HEAD + "\tld.global.u32 \t%r4, [%rd2];\n}\n"
    with pytest.raises(CompileError, match="no griddepcontrol.wait"):
        check_pdl_prologue(body, {"pdl": True})
    check_pdl_prologue(body, {})
    check_pdl_prologue(body, {"pdl": False})
