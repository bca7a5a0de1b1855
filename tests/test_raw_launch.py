"""The C twin of a cuda-python launch config (raw_launch.py), checked against the binding's own
struct without a GPU."""
import ctypes

from codegen.runtime import raw_launch
from test_runtime_launch import _kernel


def test_twin_matches_the_binding_with_a_cluster():
    cfg = _kernel((2, 1, 1)).launch_config(132, 0x1234)
    raw = raw_launch.raw_config(cfg)
    assert raw is not None
    c = raw_launch._LaunchConfig.from_address(raw.address)
    assert (c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.sharedMemBytes) == (132, 1, 1, 384, 200704)
    assert c.hStream == 0x1234 and c.numAttrs == 1
    attr = ctypes.cast(c.attrs, ctypes.POINTER(raw_launch._LaunchAttribute))[0]
    assert attr.id == raw_launch._CLUSTER_DIMENSION and list(attr.value[:3]) == [2, 1, 1]


def test_twin_carries_the_programmatic_launch_attribute(monkeypatch):
    monkeypatch.setenv("CODEGEN_PDL", "1")
    cfg = _kernel((2, 1, 1), pdl=True).launch_config(132, 0x1234)
    raw = raw_launch.raw_config(cfg)
    assert raw is not None
    c = raw_launch._LaunchConfig.from_address(raw.address)
    assert c.numAttrs == 2
    attrs = ctypes.cast(c.attrs, ctypes.POINTER(raw_launch._LaunchAttribute))
    assert attrs[0].id == raw_launch._CLUSTER_DIMENSION and list(attrs[0].value[:3]) == [2, 1, 1]
    assert attrs[1].id == raw_launch._PROGRAMMATIC and list(attrs[1].value[:3]) == [1, 0, 0]


def test_twin_without_attributes_on_the_default_stream():
    raw = raw_launch.raw_config(_kernel((1, 1, 1)).launch_config(7, 0))
    c = raw_launch._LaunchConfig.from_address(raw.address)
    assert c.gridDimX == 7 and c.numAttrs == 0 and not c.hStream and not c.attrs


def test_a_layout_that_differs_from_the_binding_is_refused(monkeypatch):
    """If our struct disagreed with the binding's (e.g. a changed cuda.h), no twin is made and
    the launch goes through cuda-python."""
    cfg = _kernel((2, 1, 1)).launch_config(132, 0x1234)
    real = raw_launch._LaunchConfig

    class Shifted(ctypes.Structure):  # hStream without its 8-byte alignment
        _pack_ = 4
        _fields_ = real._fields_

    monkeypatch.setattr(raw_launch, "_LaunchConfig", Shifted)
    assert raw_launch.raw_config(cfg) is None


def test_no_driver_no_function():
    """On a machine without libcuda the function pointer cannot be had: None, no exception."""
    fn = raw_launch.launch_function()
    assert fn is None or callable(fn)
