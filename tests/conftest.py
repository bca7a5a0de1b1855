"""Shared fixtures: a tiny template dir, a throw-away codegen package for helpers, a cache."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.spec import _TEMPLATES

HERE = Path(__file__).resolve().parent
# Spawned build workers unpickle the fake compile function by module name: keep tests/ importable.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

TEMPLATE = """\
# {{ variant_name }}
import codegen.helper_a
from codegen.sub import helper_b

ARCH = "{{ arch }}"
ARCH_NUM = {{ arch_num }}
MODE = "{{ mode }}"
TRANSPORT = {{ transport | tojson }}
TILE = ({{ bm }}, {{ bn }}, {{ bk }})
CTA_GROUP = {{ cta_group }}
TP = {{ tp | tojson }}
FLAGS = ({{ is_rs }}, {{ is_ar }}, {{ is_none }}, {{ is_multicast }})
{% include "ptx/snippet.ptx" %}
"""


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items:
        return  # importing torch costs seconds; only pay it when a GPU test is collected
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except Exception:  # noqa: BLE001 - no torch, or a broken CUDA install: no GPU tests
        has_gpu = False
    if has_gpu:
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (torch.cuda.is_available() is false)")
    for item in gpu_items:
        item.add_marker(skip)


@pytest.fixture
def tmpl_dir(tmp_path: Path) -> Path:
    d = tmp_path / "templates"
    (d / "ptx").mkdir(parents=True)
    for name in sorted(set(_TEMPLATES.values())):   # every (arch, schedule) template
        (d / name).write_text(TEMPLATE)
    (d / "ptx" / "snippet.ptx").write_text("# ptx: multimem.st.relaxed.sys.global.v4.f32\n")
    return d


@pytest.fixture
def pkg_dir(tmp_path: Path) -> Path:
    """A stand-in ``codegen`` package holding the helpers the test template imports."""
    d = tmp_path / "repo" / "codegen"
    (d / "sub").mkdir(parents=True)
    (d / "__init__.py").write_text("")
    (d / "helper_a.py").write_text("from . import helper_c\nVALUE = 1\n")
    (d / "helper_c.py").write_text("VALUE = 3\n")
    (d / "sub" / "__init__.py").write_text("")
    (d / "sub" / "helper_b.py").write_text("VALUE = 2\n")
    (d / "unused.py").write_text("VALUE = 4\n")
    return d


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory) -> Path:
    """tiny.ptx / tiny.cubin: a small real DSL kernel compiled now, in a GPU-blind subprocess."""
    if importlib.util.find_spec("cutlass") is None:
        pytest.skip("needs nvidia-cutlass-dsl (pip install -e '.[build]')")
    out = tmp_path_factory.mktemp("tiny")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    subprocess.run([sys.executable, str(HERE / "data" / "make_fixture.py"), str(out)],
                   check=True, env=env, capture_output=True, timeout=300)
    return out
