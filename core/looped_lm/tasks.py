"""Synthetic reasoning tasks that need iteration; each answer is read at the last position.

- ``parity``: a string of bits; the answer is their XOR.
- ``modular_chain``: "a1 + a2 + ... + ak =" over Z_p; the answer is the sum mod p.
- ``variable_binding``: "x0 = 7 ; x1 = x0 ; ... ; xk ?" with the chain shuffled among distractor
  assignments; the answer is the value reached after k hops.
- ``pointer_chasing``: a permutation f of 0..n-1 written as its table f(0) ... f(n-1), a start x,
  then k-1 "?" tokens; position n+i is trained to predict f^(i+1)(x), so every hop is supervised and
  the answer read at the last position is f^k(x). Each hop needs one more lookup, which is what
  makes accuracy rise with the number of loops (test-time scaling). n = 8 nodes and k = 8 hops by
  default (the shipped model, ~4 minutes of training); 5 nodes and 3 hops train in a live minute
  (``LIVE_POINTER``). Dense supervision is what makes it learnable at all in that time: with the
  answer alone, 8 nodes and 3 hops stayed at chance after 1200 steps.

``sample(batch_size, seed)`` returns (input_ids [B, T], targets [B, T]) with -100 everywhere but the
answer position, so a causal LM is trained with plain next-token cross-entropy.

:func:`shuffled_targets` is the claim tests' control: the same inputs with each batch's target rows
permuted (a seeded permutation per batch), so the labels keep their marginal distribution and lose
every dependence on the input. A model trained on it meets the architecture but learns no task.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.common.config import check_choice, check_range
from core.common.seeding import derive_rng, make_rng
from core.looped_lm.config import POINTER_NODES, TASKS


@dataclass(frozen=True)
class Task:
    """A synthetic reasoning task; ``sample(batch_size, seed)`` draws (input_ids, targets) [batch, seq_len].

    Targets are -100 (ignored) everywhere but the supervised positions: the last one, or every hop's for
    pointer chasing (``hop_targets`` reads them). Build one with :func:`make_task`.

    Attributes
    ----------
    name : str
        One of ``TASKS``.
    vocab : int
        Token ids are 0..vocab-1.
    seq_len : int
        Length of every sample.
    length : int
        Bits (parity), terms (modular chain) or hops (variable binding, pointer chasing).
    modulus : int
        Modular chain's p.
    nodes : int
        Pointer chasing's permutation size.

    Examples
    --------
    >>> from core.looped_lm import make_task
    >>> ids, targets = make_task("modular_chain").sample(4, seed=0)
    >>> tuple(ids.shape), int((targets[:, :-1] != -100).sum())
    ((4, 6), 0)
    """

    name: str
    vocab: int
    seq_len: int
    length: int          # bits, terms or hops
    modulus: int = 5
    nodes: int = POINTER_NODES   # pointer chasing: size of the permutation

    def sample(self, batch_size: int, seed: int):
        rng = make_rng(seed)
        if self.name == "parity":
            bits = rng.integers(0, 2, (batch_size, self.length))
            ids = np.concatenate([bits, np.full((batch_size, 1), 2)], 1)   # 2 = "?"
            answer = bits.sum(1) % 2
        elif self.name == "modular_chain":
            p = self.modulus
            terms = rng.integers(0, p, (batch_size, self.length))
            plus, equals = p, p + 1
            ids = np.full((batch_size, 2 * self.length), plus)
            ids[:, 0::2] = terms
            ids[:, -1] = equals
            answer = terms.sum(1) % p
        elif self.name == "pointer_chasing":
            return self._pointer(batch_size, rng)
        else:
            ids, answer = self._binding(batch_size, rng)
        targets = np.full(ids.shape, -100)
        targets[:, -1] = answer
        return torch.as_tensor(ids, dtype=torch.long), torch.as_tensor(targets, dtype=torch.long)

    def _pointer(self, batch_size, rng):
        n, hops = self.nodes, self.length
        table = np.argsort(rng.random((batch_size, n)), axis=1)          # one permutation per row
        node = rng.integers(0, n, batch_size)
        ids = np.concatenate([table, node[:, None], np.full((batch_size, hops - 1), n)], 1)   # n = "?"
        targets = np.full(ids.shape, -100)
        for i in range(hops):
            node = table[np.arange(batch_size), node]
            targets[:, n + i] = node
        return torch.as_tensor(ids, dtype=torch.long), torch.as_tensor(targets, dtype=torch.long)

    def hop_targets(self, targets: torch.Tensor) -> torch.Tensor:
        """[batch, hops] answers of every supervised position (one column for single-answer tasks)."""
        return targets[:, self.nodes:] if self.name == "pointer_chasing" else targets[:, -1:]

    def _binding(self, batch_size, rng):
        # Tokens: values 0..9, variables 10..(10+V-1), then "=", ";", "?".
        n_vars, hops = 2 * (self.length + 1), self.length
        eq, sep, query = 10 + n_vars, 11 + n_vars, 12 + n_vars
        rows, answers = [], []
        for _ in range(batch_size):
            names = rng.permutation(n_vars) + 10
            chain, other = names[: hops + 1], names[hops + 1:]
            value = int(rng.integers(10))
            statements = [[chain[0], eq, value]] + [[chain[i], eq, chain[i - 1]] for i in range(1, hops + 1)]
            statements += [[v, eq, int(rng.integers(10))] for v in other[: hops]]
            order = rng.permutation(len(statements))
            tokens = [t for i in order for t in (*statements[i], sep)]
            rows.append(tokens + [chain[-1], query])
            answers.append(value)
        return np.array(rows), np.array(answers)


def make_task(name: str, length: int | None = None, nodes: int = POINTER_NODES) -> Task:
    """The task ``name`` at a given length.

    Parameters
    ----------
    name : str
        "parity", "modular_chain", "variable_binding" or "pointer_chasing".
    length : int or None
        Bits, terms or hops, 1..64; None or 0 takes the task's default (8 bits, 3 terms, 3 bindings, 8 hops).
    nodes : int
        Pointer chasing's permutation size, 3..32 (checked for every task).

    Returns
    -------
    Task
        Its vocabulary and sequence length follow from the name and the length.

    Raises
    ------
    ValueError
        For an unknown name or a length or node count out of range.

    Examples
    --------
    >>> from core.looped_lm import make_task
    >>> task = make_task("pointer_chasing", length=3, nodes=5)
    >>> task.vocab, task.seq_len, task.length
    (6, 8, 3)
    """
    check_choice("task", name, TASKS)
    if length:
        check_range("length", length, low=1, high=64, integer=True)
    check_range("nodes", nodes, low=3, high=32, integer=True)
    if name == "parity":
        n = length or 8
        return Task(name, 3, n + 1, n)
    if name == "modular_chain":
        n = length or 3
        return Task(name, 5 + 2, 2 * n, n, modulus=5)
    if name == "pointer_chasing":
        n = length or 8
        return Task(name, nodes + 1, nodes + n, n, nodes=nodes)
    n = length or 3
    n_vars = 2 * (n + 1)
    return Task(name, 13 + n_vars, 4 * (2 * n + 1) + 2, n)


@dataclass(frozen=True)
class ShuffledTask(Task):
    """``task`` with its targets permuted across the batch (rows): inputs and labels made independent."""

    def sample(self, batch_size: int, seed: int):
        ids, targets = super().sample(batch_size, seed)
        order = derive_rng(seed, "shuffled targets").permutation(batch_size)
        return ids, targets[torch.as_tensor(order)]


def shuffled_targets(task: Task) -> ShuffledTask:
    """The control task: ``task``'s inputs, its target rows permuted within every batch.

    Parameters
    ----------
    task : Task
        The task whose labels are made independent of its inputs.

    Returns
    -------
    ShuffledTask
        A :class:`Task` whose ``sample(batch_size, seed)`` gives ``task``'s inputs and its target rows
        permuted by a permutation derived from ``seed``: the labels keep their marginal distribution.

    Examples
    --------
    >>> from core.looped_lm import make_task, shuffled_targets
    >>> task = make_task("modular_chain")
    >>> ids, targets = task.sample(64, seed=1)
    >>> ids2, shuffled = shuffled_targets(task).sample(64, seed=1)
    >>> bool((ids == ids2).all()), sorted(shuffled[:, -1].tolist()) == sorted(targets[:, -1].tolist())
    (True, True)
    """
    return ShuffledTask(**{name: getattr(task, name) for name in Task.__dataclass_fields__})
