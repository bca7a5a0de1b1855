"""A model of the kernels' cross-rank protocol (docs/KERNEL-CONTRACT.md), explored on the CPU.

Every rank runs its calls as two concurrent threads (the GEMM epilogue, the communication
warps), each a sequence of atomic steps; a random scheduler interleaves all threads of all
ranks. The model checks what the no-entry-barrier design relies on:
- an owner reads a peer's partial tile of epoch e only after the peer published it, and the
  buffer still holds epoch e (not overwritten by epoch e + 2 on the same parity);
- a rank copies its AR landing buffer out only after each owner stored it, and it still holds
  epoch e.
  The copy-out items go through the AR copy-out queue: the communication thread takes them from
  the front after its reduction, the epilogue thread from the back after its GEMM (one claim
  per step, so every item is copied once by whichever gets it).
The check that makes this hold is "before writing parity e % 2, wait until every rank has
finished epoch e - 2". For RS, without it the model must find a violation (a negative control):
this shows the exploration is strong enough to see the race the check prevents. For AR the
model finds none even without the check: every rank's copy-out waits for every owner, and an
owner stores only after reading all partials, so no rank can finish epoch e before all reads of
e are done. The check then costs AR nothing, and it keeps RS safe.
"""
from __future__ import annotations

import random

import pytest


class Violation(AssertionError):
    pass


class Model:
    """tp ranks, `calls` calls; `owners[c]` = ranks that own rows in call c (ragged M: the last
    ranks may own none). One tile per owner chunk keeps the state small."""

    def __init__(self, tp: int, owners: list[set[int]], mode: str, epoch_check: bool):
        self.tp, self.owners, self.mode, self.epoch_check = tp, owners, mode, epoch_check
        self.done = [0] * tp                          # flag word [0]: completed calls
        self.ws = [[0, 0] for _ in range(tp)]         # epoch whose partial is in ws[r][parity]
        self.flag = [[0, 0] for _ in range(tp)]       # partial flag (one tile per rank)
        self.ar = [[[0, 0] for _ in range(tp)] for _ in range(tp)]   # ar[r][owner][parity]
        self.arflag = [[0] * tp for _ in range(tp)]   # arflag[r][owner]
        self.threads = []
        for r in range(tp):
            self.threads.append(self._rank(r))

    # each rank: calls in order; within a call, the epilogue and comm threads interleave freely
    def _rank(self, r):
        for call in range(len(self.owners)):
            e = self.done[r] + 1
            p = e % 2
            # AR copy-out queue of this call (one item per owner): the comm thread takes items
            # from the front after its reduction, the epilogue from the back after its GEMM
            queue = sorted(self.owners[call]) if self.mode == "ar" else []
            epi, comm = self._epilogue(r, e, p, queue), self._comm(r, e, p, call, queue)
            live = [epi, comm]
            while live:
                t = live[random.randrange(len(live))]
                try:
                    yield next(t)
                except StopIteration:
                    live.remove(t)
            self.done[r] = e
            yield "finish"

    def _epilogue(self, r, e, p, queue):
        if self.epoch_check:
            while not all(self.done[q] >= e - 2 for q in range(self.tp)):
                yield "wait-epochs"
        yield "gemm"
        self.ws[r][p] = e
        yield "store"
        self.flag[r][p] = e
        yield "publish"
        while queue:                      # the consumers join the copy-out (from the back)
            yield from self._copy(r, e, p, queue.pop())

    def _copy(self, r, e, p, o):
        while self.arflag[r][o] < e:
            yield "wait-ar"
        yield "copy"
        if self.ar[r][o][p] != e:
            raise Violation(f"rank {r} copied owner {o}'s rows of epoch "
                            f"{self.ar[r][o][p]} in epoch {e}")

    def _comm(self, r, e, p, call, queue):
        owners = self.owners[call]
        if r in owners:
            while not all(self.flag[q][p] >= e for q in range(self.tp)):
                yield "wait-flags"
            for q in range(self.tp):
                yield "load"
                if self.ws[q][p] != e:
                    raise Violation(f"rank {r} read rank {q}'s partial of epoch {self.ws[q][p]} "
                                    f"in epoch {e}")
            if self.mode == "ar":
                for q in range(self.tp):
                    self.ar[q][r][p] = e
                    yield "push"
                for q in range(self.tp):
                    self.arflag[q][r] = e
                    yield "ar-flag"
        while queue:                      # copy-out items not taken by the epilogue
            yield from self._copy(r, e, p, queue.pop(0))

    def run(self, max_steps: int = 100_000) -> None:
        live = list(self.threads)
        for _ in range(max_steps):
            if not live:
                return
            t = live[random.randrange(len(live))]
            try:
                next(t)
            except StopIteration:
                live.remove(t)
        raise AssertionError("model did not finish (deadlock or livelock)")


def _schedules(tp: int, calls: int, seed: int):
    rng = random.Random(seed)
    # ragged M: each call, a prefix of the ranks owns rows (at least rank 0)
    return [set(range(rng.randint(1, tp))) for _ in range(calls)]


@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 3, 4])
def test_protocol_holds_with_the_epoch_check(mode, tp):
    for seed in range(300):
        random.seed(seed)
        Model(tp, _schedules(tp, 6, seed), mode, epoch_check=True).run()


def _violations(mode: str, tp: int, epoch_check: bool, seeds: int = 300) -> int:
    found = 0
    for seed in range(seeds):
        random.seed(seed)
        try:
            Model(tp, _schedules(tp, 6, seed), mode, epoch_check).run()
        except Violation:
            found += 1
    return found


def test_rs_without_the_epoch_check_the_model_finds_the_race():
    """Negative control: drop the e-2 check and an RS rank that owns no rows races ahead."""
    assert _violations("rs", 2, epoch_check=False) > 0, \
        "the exploration never saw the race the epoch check exists to prevent"


def test_ar_copy_out_already_orders_the_calls():
    assert _violations("ar", 3, epoch_check=False) == 0
