"""Objects a process shares and never copies: a group of ranks, a tensor-parallel context.

Their buffers are mapped by their peers (or, virtual, by every rank of this process), so a copy
would be one nobody else talks to. copy.copy / copy.deepcopy return the object itself (as
GemmRsAr's copies share their group, deep-copying a model or a dict that holds one keeps one);
pickle refuses it by name, saying what to do instead.
"""
from __future__ import annotations


class SharedInstance:
    """copy / deepcopy return self; pickle raises TypeError(self.pickle_refusal())."""

    def pickle_refusal(self) -> str:
        return (f"a {type(self).__name__} cannot be pickled: its buffers are mapped by its peers "
                f"in this process; build it in the process that uses it")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        memo[id(self)] = self
        return self

    def __reduce__(self):
        raise TypeError(self.pickle_refusal())
