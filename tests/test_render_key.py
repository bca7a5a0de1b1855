import dataclasses
import re
import shutil

import jinja2
import pytest

from codegen.build import KeyContext, prepare_job
from codegen.cache import cache_key
from codegen.render import render, template_context
from codegen import contract
from codegen.spec import Variant

V = Variant("sm_90a", "ar", "unicast", 128, 1, 8)
FAKE = "fake_compile:compile_source"  # a non-codegen driver: adds no helper files


def _key(tmpl_dir, pkg_dir, variant=V, ctx=None):
    ctx = ctx or KeyContext.current(FAKE, tmpl_dir, pkg_dir)
    return prepare_job(variant, ctx).key


def test_context_has_named_variables():
    ctx = template_context(Variant("sm_100a", "rs", "multicast", 256, 2, 4))
    assert ctx == {
        "arch": "sm_100a", "arch_num": 100, "mode": "rs", "transport": "multicast", "bm": 128,
        "bn": 256, "bk": 64, "cta_group": 2, "tp": 4, "dtype": "bf16",
        "variant_name": "gemm_rs_multicast_sm100a_bn256_cg2_tp4_bf16",
        "is_rs": True, "is_ar": False, "is_none": False, "is_multicast": True,
        "push": False, "wide": False, "w_groups": 2, "ksplit": 1, "xmc": 1, "splitk_spread": False,
        "epi_tokens": 256, "epi_passes": 1,
        "ragged_n": False,
        "scalar_params": contract.scalar_params("sm_100a", "rs"), "schedule": "tile",
        "trace": False,
    }
    # the sm_90a unicast tile rs/ar kernels push their partials into the owners' slots
    assert template_context(Variant("sm_90a", "rs", "unicast", 256, 2, 4))["push"] is True
    assert template_context(Variant("sm_90a", "rs", "multicast", 256, 2, 4))["push"] is False
    # the decode cta_group 2 is the wide kernel, in every mode
    none_cg2 = Variant("sm_90a", "none", None, 160, 2, None, schedule="swapab")
    assert template_context(none_cg2)["wide"] is True
    assert template_context(dataclasses.replace(none_cg2, cta_group=1))["wide"] is False
    rs_cg2 = Variant("sm_90a", "rs", "unicast", 160, 2, 2, schedule="swapab")
    assert template_context(rs_cg2)["wide"] is True
    # the wide kernel (sm_90a, every mode) and cta_group 3 may reach past N; cta_group 1 not
    assert template_context(none_cg2)["ragged_n"] is True
    assert template_context(rs_cg2)["ragged_n"] is True
    assert template_context(dataclasses.replace(none_cg2, cta_group=3))["ragged_n"] is True
    assert template_context(dataclasses.replace(none_cg2, cta_group=1))["ragged_n"] is False
    assert template_context(dataclasses.replace(rs_cg2, cta_group=1))["ragged_n"] is False
    # splitk: the cluster size is the K split; never wide
    sk = Variant("sm_90a", "ar", "unicast", 64, 4, 2, schedule="splitk")
    assert (template_context(sk)["ksplit"], template_context(sk)["wide"]) == (4, False)
    assert template_context(dataclasses.replace(sk, cta_group=2))["ksplit"] == 2
    # mode none's sm_90a splitk kernels spread (W tile, token tile) pairs over the clusters;
    # rs/ar (their reduce covers a W tile's rows) and sm_100a (compile-only) do not
    assert template_context(sk)["splitk_spread"] is False
    sk_none = dataclasses.replace(sk, mode="none", transport=None, tp=None)
    assert template_context(sk_none)["splitk_spread"] is True
    assert template_context(dataclasses.replace(sk_none, arch="sm_100a"))["splitk_spread"] is False
    assert template_context(none_cg2)["splitk_spread"] is False
    assert sk.template_name == "sm90_swapab.py.j2"


def test_render_output_and_dependencies(tmpl_dir, pkg_dir):
    r = render(V, tmpl_dir, pkg_dir)
    assert r.source.startswith("# gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16\n")
    assert 'TRANSPORT = "unicast"' in r.source and "TP = 8" in r.source
    assert "multimem.st" in r.source and r.source.endswith("\n")
    assert r.template_files == tuple(sorted([(tmpl_dir / "sm90_gemm.py.j2").resolve(),
                                             (tmpl_dir / "ptx" / "snippet.ptx").resolve()]))
    names = sorted(p.relative_to(pkg_dir.resolve()).as_posix() for p in r.helpers)
    # transitive (helper_a -> helper_c, relative import), parent packages, no unused module
    assert names == ["__init__.py", "helper_a.py", "helper_c.py", "sub/__init__.py", "sub/helper_b.py"]
    none = render(Variant("sm_100a", "none", None, 256, 2, None), tmpl_dir, pkg_dir).source
    assert "TRANSPORT = null" in none and "TP = null" in none


def test_strict_undefined(tmpl_dir, pkg_dir):
    (tmpl_dir / "sm90_gemm.py.j2").write_text("{{ no_such_variable }}\n")
    with pytest.raises(jinja2.UndefinedError):
        render(V, tmpl_dir, pkg_dir)


def test_missing_template_is_a_clear_error(tmp_path, pkg_dir):
    with pytest.raises(FileNotFoundError, match="sm90_gemm.py.j2 not found"):
        render(V, tmp_path, pkg_dir)


def test_key_stable_across_renders_cwd_and_checkout_location(tmpl_dir, pkg_dir, tmp_path, monkeypatch):
    k1 = _key(tmpl_dir, pkg_dir)
    assert _key(tmpl_dir, pkg_dir) == k1
    monkeypatch.chdir(tmp_path)
    assert _key(tmpl_dir, pkg_dir) == k1
    monkeypatch.chdir(pkg_dir / "sub")
    assert _key(tmpl_dir, pkg_dir) == k1
    # the same checkout somewhere else: helper paths are repo-relative, so the same key
    other = tmp_path / "elsewhere"
    shutil.copytree(pkg_dir.parent, other / "repo")
    shutil.copytree(tmpl_dir, other / "templates")
    assert _key(other / "templates", other / "repo" / "codegen") == k1


def test_key_differs_per_variant(tmpl_dir, pkg_dir):
    ctx = KeyContext.current(FAKE, tmpl_dir, pkg_dir)
    keys = {_key(tmpl_dir, pkg_dir, Variant("sm_90a", "ar", t, 128, 1, tp), ctx)
            for t in ("unicast", "multicast") for tp in (2, 4, 8, 16)}
    assert len(keys) == 8


def test_key_changes_with_template(tmpl_dir, pkg_dir):
    k = _key(tmpl_dir, pkg_dir)
    t = tmpl_dir / "sm90_gemm.py.j2"
    t.write_text(t.read_text() + "EXTRA = 1\n")
    assert _key(tmpl_dir, pkg_dir) != k


def test_key_changes_with_included_template(tmpl_dir, pkg_dir):
    k = _key(tmpl_dir, pkg_dir)
    (tmpl_dir / "ptx" / "snippet.ptx").write_text("# ptx: multimem.ld_reduce\n")
    assert _key(tmpl_dir, pkg_dir) != k


@pytest.mark.parametrize("helper", ["helper_a.py", "helper_c.py", "sub/helper_b.py", "__init__.py"])
def test_key_changes_with_imported_helper(tmpl_dir, pkg_dir, helper):
    k = _key(tmpl_dir, pkg_dir)
    path = pkg_dir / helper
    path.write_text(path.read_text() + "# changed\n")
    assert _key(tmpl_dir, pkg_dir) != k


def test_key_ignores_unimported_module(tmpl_dir, pkg_dir):
    k = _key(tmpl_dir, pkg_dir)
    (pkg_dir / "unused.py").write_text("VALUE = 5\n")
    assert _key(tmpl_dir, pkg_dir) == k


def test_key_changes_with_toolchain(tmpl_dir, pkg_dir):
    ctx = KeyContext.current(FAKE, tmpl_dir, pkg_dir)
    k = _key(tmpl_dir, pkg_dir, ctx=ctx)
    bumped = dict(ctx.toolchain, **{"nvidia-cutlass-dsl": "9.9.9"})
    assert _key(tmpl_dir, pkg_dir, ctx=dataclasses.replace(ctx, toolchain=bumped)) != k


def test_key_changes_with_codegen_env(tmpl_dir, pkg_dir, monkeypatch):
    monkeypatch.delenv("CUTE_DSL_ARCH", raising=False)
    monkeypatch.delenv("CUTE_DSL_KEEP", raising=False)
    k = _key(tmpl_dir, pkg_dir)
    monkeypatch.setenv("CUTE_DSL_KEEP", "ptx,cubin")  # a dump switch: no effect on the key
    assert _key(tmpl_dir, pkg_dir) == k
    monkeypatch.setenv("CUTE_DSL_ARCH", "sm_90a")
    assert _key(tmpl_dir, pkg_dir) != k


def test_default_driver_sources_are_in_the_key(tmpl_dir, pkg_dir):
    (pkg_dir / "compile.py").write_text("import codegen.helper_c\n")
    ctx = KeyContext.current("codegen.compile:compile_source", tmpl_dir, pkg_dir)
    job = prepare_job(V, ctx)
    assert "codegen/compile.py" in job.meta["helpers"]
    (pkg_dir / "compile.py").write_text("import codegen.helper_c\n# edited\n")
    ctx2 = KeyContext.current("codegen.compile:compile_source", tmpl_dir, pkg_dir)
    assert prepare_job(V, ctx2).key != job.key


def test_cache_key_is_canonical_and_rejects_absolute_helper_paths():
    a = cache_key(V, "src", {"codegen/a.py": "1", "codegen/b.py": "2"}, {"x": "1", "y": "2"}, {})
    b = cache_key(V, "src", {"codegen/b.py": "2", "codegen/a.py": "1"}, {"y": "2", "x": "1"}, {})
    assert a == b and len(a) == 64
    with pytest.raises(ValueError, match="repo-relative"):
        cache_key(V, "src", {"/abs/codegen/a.py": "1"}, {}, {})


def test_splitk_work_items_in_the_real_template():
    """Mode none's sm_90a splitk kernels loop over (W tile, token tile) pairs, in the producer
    and in the consumers alike (contract.splitk_spread); rs/ar keep a W tile per cluster, its
    token tiles inside; the wide swapab kernel loops over pairs as before."""
    pairs = "for wi in range(cluster_id, n_tiles * m_tiles, num_clusters):"
    tiles = "for nt in range(cluster_id, n_tiles, num_clusters):"

    def source(mode, schedule, cg, bn=64):
        tp, transport = (None, None) if mode == "none" else (2, "unicast")
        return render(Variant("sm_90a", mode, transport, bn, cg, tp, schedule=schedule)).source

    for cg in contract.SPLITK_CTA_GROUPS:
        src = source("none", "splitk", cg)
        assert src.count(pairs) == 2 and tiles not in src
        assert "N / 64 * ceil(M / token tile)" in src
        for mode in ("rs", "ar"):
            src = source(mode, "splitk", cg)
            assert src.count(tiles) == 2 and pairs not in src
    assert source("rs", "swapab", 2).count(pairs) == 2
    assert source("none", "swapab", 1).count(tiles) == 2


def test_every_kernel_loops_over_ceil_k_tiles():
    """K need only be a multiple of contract.K_MULTIPLE: every template's k-tile count rounds
    up (contract.k_tiles), so the last, partial k-tile (zero-filled past K by TMA) is not
    dropped. One kernel of each template: tile and decode (swapab, splitk), both archs.

    The sm_90a decode template spells it cute.ceil_div: written (K + BK - 1) // BK, ptxas laid
    the mode-none decode kernels out differently and they ran 0.5-1.2 us slower at decode sizes
    (BENCHMARKS.md, 2026-12-01 tenth session), so that spelling is held there."""
    size = r"(cute\.size\(mA, mode=\[1\]\)|k_i)"
    ceil_div = re.compile(rf"k_tiles = cute\.ceil_div\({size}, BK\)")
    ceil = re.compile(rf"k_tiles = (\(\s*{size}\s*\+ BK - 1\) // BK|cute\.ceil_div\({size}, BK\))")
    floor = re.compile(rf"k_tiles = {size} // BK")
    for arch in contract.ARCHS:
        for v in (Variant(arch, "rs", "unicast", 128, 1, 2),
                  Variant(arch, "none", None, 64, 1, None, schedule="swapab"),
                  Variant(arch, "ar", "unicast", 64, 2, 2, schedule="splitk")):
            src = render(v).source
            assert len(ceil.findall(src)) == 1 and not floor.search(src), (arch, v)
            if arch == "sm_90a" and v.schedule in ("swapab", "splitk"):
                assert len(ceil_div.findall(src)) == 1, v
    assert [contract.k_tiles(k) for k in (8, 64, 72, 1000, 4096, 4104)] == [1, 1, 2, 16, 64, 65]
