"""stream_order.StreamOrder: a group's calls stay ordered when the caller changes streams."""
from codegen.runtime import stream_order
from codegen.runtime.stream_order import StreamOrder


class FakeStream:
    def __init__(self, name):
        self.name, self.waited_on = name, []

    def wait_stream(self, other):
        self.waited_on.append(other.name)


def _order(streams, capturing=lambda: False, stream_capturing=lambda handle: False):
    it = iter(streams)
    return StreamOrder(current=lambda: next(it), capturing=capturing,
                       stream_capturing=stream_capturing)


def test_one_stream_never_waits():
    a = FakeStream("a")
    order = _order([a])
    for _ in range(5):
        order.before_launch(1)   # the same handle: not even the current stream is looked up
    assert order.waits == 0 and a.waited_on == []


def test_a_new_stream_waits_for_the_last_one_then_runs_free():
    a, b, a2 = FakeStream("a"), FakeStream("b"), FakeStream("a")
    order = _order([a, b, a2])
    order.before_launch(1)        # first call: nothing to wait for
    order.before_launch(2)        # b waits for a
    order.before_launch(2)
    order.before_launch(1)        # back on a: waits for b
    assert (a.waited_on, b.waited_on, a2.waited_on) == ([], ["a"], ["b"])
    assert order.waits == 2


def test_no_wait_inside_a_capture_but_the_capture_stream_becomes_the_last():
    a, cap, a2 = FakeStream("a"), FakeStream("cap"), FakeStream("a")
    flags = iter([True, False])
    order = _order([a, cap, a2], capturing=lambda: next(flags))
    order.before_launch(1)
    order.before_launch(7)        # capturing: an outside event cannot be waited on
    order.before_launch(1)        # eager again: waits for the capture's stream
    assert cap.waited_on == [] and a2.waited_on == ["cap"] and order.waits == 1


def test_no_wait_for_a_last_stream_another_thread_is_capturing():
    """An eager call on b after a call on a, while a (another thread's) is being captured: an
    event recorded on a would join the eager work to that capture and invalidate it, so b does
    not wait; once a's capture ended, a later switch waits as usual."""
    a, b, a2, b2 = FakeStream("a"), FakeStream("b"), FakeStream("a"), FakeStream("b")
    capturing_now = {1}
    order = _order([a, b, a2, b2], stream_capturing=lambda handle: handle in capturing_now)
    order.before_launch(1)
    order.before_launch(2)        # a is capturing: no wait
    capturing_now.clear()
    order.before_launch(1)        # a waits for b
    order.before_launch(2)        # b waits for a
    assert (b.waited_on, a2.waited_on, b2.waited_on) == ([], ["b"], ["a"])
    assert order.waits == 2


def test_one_order_per_group_object():
    class G:
        pass
    g1, g2 = G(), G()
    assert stream_order.of_group(g1) is stream_order.of_group(g1)
    assert stream_order.of_group(g1) is not stream_order.of_group(g2)


def test_a_group_without_instance_dict_gets_an_order_too():
    class Slotted:
        __slots__ = ("tp",)
    g = Slotted()
    assert stream_order.of_group(g) is stream_order.of_group(g)


def test_the_op_orders_a_caller_stream_groups_launches(monkeypatch):
    """GemmRsAr._launch_on, for a group that launches on the caller's stream (stream None):
    a launch on a new stream first waits for the group's last one; mode none never asks."""
    import torch

    from codegen.runtime import op as op_mod
    from test_runtime_validate import K, MAX_M, N, CpuGroup

    class CallerStreamGroup(CpuGroup):
        def stream(self, rank):
            return None

    streams = {1: FakeStream("s1"), 2: FakeStream("s2")}
    handle = {"now": 1}
    monkeypatch.setattr(op_mod, "current_stream_handle", lambda dev: handle["now"])
    monkeypatch.setattr(stream_order, "_torch_current", lambda: streams[handle["now"]])
    monkeypatch.setattr(stream_order, "_torch_capturing", lambda: False)
    monkeypatch.setattr(stream_order, "_driver_stream_capturing", lambda handle: False)
    launched = []

    class Plan:
        M = 1

        def launch(self, x, w, out, h, x_ld=0, w_ld=0, sk=None):
            launched.append(h)

    group = CallerStreamGroup()
    op = op_mod.GemmRsAr(MAX_M, N, K, "rs", group, arch="sm_90a")
    op.device = torch.device("cpu")
    t = torch.zeros(1)
    for h in (1, 1, 2, 2, 1):
        handle["now"] = h
        op._launch_on(Plan(), 0, t, t, t, None, None)
    assert launched == [1, 1, 2, 2, 1]
    assert streams[2].waited_on == ["s1"] and streams[1].waited_on == ["s2"]
    assert stream_order.of_group(group).waits == 2


def test_the_driver_check_fails_safe(monkeypatch):
    """Where the driver cannot say whether the last stream is capturing (the legacy stream
    while a blocking stream captures), the wait is skipped rather than the call failing."""
    from codegen.runtime import driver
    from codegen.runtime.errors import DriverError

    def refuse(handle):
        raise DriverError("cuStreamIsCapturing", 906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT")
    monkeypatch.setattr(driver, "stream_capturing", refuse)
    assert stream_order._driver_stream_capturing(0) is True
    monkeypatch.setattr(driver, "stream_capturing", lambda handle: False)
    assert stream_order._driver_stream_capturing(0) is False
