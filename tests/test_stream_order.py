"""stream_order.StreamOrder: a group's calls stay ordered when the caller changes streams."""
from codegen.runtime import stream_order
from codegen.runtime.stream_order import StreamOrder


class FakeStream:
    def __init__(self, name):
        self.name, self.waited_on = name, []

    def wait_stream(self, other):
        self.waited_on.append(other.name)


def _order(streams, capturing=lambda: False):
    it = iter(streams)
    return StreamOrder(current=lambda: next(it), capturing=capturing)


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


def test_one_order_per_group_object():
    class G:
        pass
    g1, g2 = G(), G()
    assert stream_order.of_group(g1) is stream_order.of_group(g1)
    assert stream_order.of_group(g1) is not stream_order.of_group(g2)
