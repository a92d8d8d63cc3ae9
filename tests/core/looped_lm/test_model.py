"""The looped model's structure: designs, truncated backprop, the cache, tasks and the loop sampler."""

import numpy as np
import pytest
import torch

from core.looped_lm.cache import run_with_cache
from core.looped_lm.model import LoopedLM
from core.looped_lm.tasks import TASKS, make_task
from core.looped_lm.training import INJECTIONS, NORMS, LoopedConfig, sample_loops, train


@pytest.mark.parametrize("injection", INJECTIONS)
@pytest.mark.parametrize("norm", NORMS)
def test_every_design_runs_and_the_cache_matches_the_forward_pass(injection, norm):
    torch.manual_seed(0)
    model = LoopedLM(vocab=11, seq_len=9, d=32, heads=4, block=2, injection=injection, norm=norm).eval()
    ids = torch.randint(0, 11, (3, 9))
    cache = run_with_cache(model, ids, num_loops=5)
    assert (cache.num_loops, cache.block_size) == (5, 2)
    assert cache.hidden(4, 1).shape == (3, 9, 32) and cache.attention(0, 0).shape == (3, 4, 9, 9)
    with torch.no_grad():
        assert torch.allclose(cache.logits, model(ids, 5), atol=1e-5)
        assert torch.allclose(model.unembed(model.final_norm(cache.coda)), cache.logits, atol=1e-5)
        assert torch.allclose(cache.prelude, model.encode(ids)) and cache.states.shape == (5, 3, 9, 32)
    rows = cache.attention(2, 1).sum(-1)
    assert torch.allclose(rows, torch.ones_like(rows), atol=1e-5)
    assert torch.all(cache.attention(0, 0).triu(1) == 0)  # causal
    with pytest.raises(ValueError, match=r"^loop: 5 is out of range; allowed 0..4$"):
        cache.hidden(5, 0)


def test_truncated_backprop_leaves_early_loops_without_gradient():
    torch.manual_seed(0)
    model = LoopedLM(vocab=11, seq_len=9, d=32, heads=4, block=1)
    ids = torch.randint(0, 11, (2, 9))
    model(ids, 6, grad_loops=2).sum().backward()
    full = [p.grad.clone() for p in model.block.parameters()]
    model.zero_grad()
    model(ids, 6, grad_loops=6).sum().backward()
    assert any(not torch.allclose(a, p.grad) for a, p in zip(full, model.block.parameters()))


def test_loop_sampler_has_the_requested_mean():
    rng = np.random.default_rng(0)
    draws = np.array([(d.loops, d.grad_loops) for d in (sample_loops(8, 4, rng) for _ in range(20_000))])
    assert draws[:, 0].mean() == pytest.approx(9.0, rel=0.03)  # Poisson(rate) + 1 with E[rate] = 8
    assert (draws[:, 1] == np.minimum(draws[:, 0], 4)).all() and draws[:, 0].min() >= 1


@pytest.mark.parametrize("name", TASKS)
def test_tasks_are_seeded_and_answer_at_the_last_position(name):
    task = make_task(name)
    ids, targets = task.sample(16, seed=3)
    assert ids.shape == (16, task.seq_len) and ids.max() < task.vocab
    answers = task.hop_targets(targets)
    assert (targets[:, : task.seq_len - answers.shape[1]] == -100).all() and (answers >= 0).all()
    assert torch.equal(answers[:, -1], targets[:, -1])
    assert torch.equal(ids, task.sample(16, seed=3)[0])


def test_task_answers_are_right():
    ids, t = make_task("parity").sample(32, 0)
    assert torch.equal(t[:, -1], ids[:, :-1].sum(1) % 2)
    ids, t = make_task("modular_chain").sample(32, 0)
    assert torch.equal(t[:, -1], ids[:, 0::2].sum(1) % 5)


def test_pointer_chasing_answers_follow_the_permutation():
    task = make_task("pointer_chasing")
    ids, t = task.sample(32, 0)
    table, node = ids[:, :8], ids[:, 8]
    assert (table.sort(1).values == torch.arange(8)).all()            # each table is a permutation
    for hop in range(task.length):
        node = table.gather(1, node[:, None])[:, 0]
        assert torch.equal(t[:, 8 + hop], node)
    assert (ids[:, 9:] == 8).all() and task.seq_len == 16
    small = make_task("pointer_chasing", length=3, nodes=5)
    ids, t = small.sample(4, 0)
    assert ids.shape == (4, 8) and small.vocab == 6 and (ids[:, 6:] == 5).all()
    node = ids[:, 5]
    for hop in range(3):
        node = ids[:, :5].gather(1, node[:, None])[:, 0]
        assert torch.equal(t[:, 5 + hop], node) and torch.equal(small.hop_targets(t)[:, hop], node)
    with pytest.raises(ValueError, match="^nodes: .*allowed"):
        make_task("pointer_chasing", nodes=2)


def test_training_is_seeded_and_stops_when_asked():
    from core.common.progress import ProgressLog

    cfg = LoopedConfig(task="parity", d_model=16, heads=2, steps=5, batch_size=8)
    log = ProgressLog(stop_after=3)
    a = train(cfg, seed=1, progress=log)
    b = train(cfg, seed=1, progress=ProgressLog(stop_after=3))
    assert log.steps == [1, 2, 3] and np.array_equal(a.loss, b.loss) and len(a.loss) == 3
    assert a.stopped and a.accuracy == {}          # a stopped run skips its evaluation
    full = train(cfg, seed=1, progress=ProgressLog())
    assert not full.stopped and set(full.accuracy) == {1, 2, 4, 8, 16, 32}
    assert np.array_equal(full.loss[:3], a.loss)
    with pytest.raises(ValueError, match="^heads: 3 does not divide d_model=16"):
        LoopedConfig(d_model=16, heads=3)


def test_shuffled_targets_keep_the_inputs_and_the_label_marginal_and_lose_the_pairing():
    from core.looped_lm.tasks import shuffled_targets

    task = make_task("modular_chain")
    control = shuffled_targets(task)
    ids, targets = task.sample(512, seed=3)
    ids_c, targets_c = control.sample(512, seed=3)
    assert torch.equal(ids, ids_c) and torch.equal(targets_c, control.sample(512, seed=3)[1])   # seeded
    assert torch.equal(targets[:, -1].sort().values, targets_c[:, -1].sort().values)           # same labels
    assert (targets_c[:, :-1] == -100).all()
    assert (targets_c[:, -1] == targets[:, -1]).float().mean() < 0.35     # the pairing is gone (chance 0.2)
    assert torch.equal(targets_c[:, -1], ids_c[:, 0::2].sum(1) % 5) is False
    assert LoopedConfig(shuffled=True).to_dict()["shuffled"] is True


def test_cycle_evidence_refuses_too_few_loops():
    from core.looped_lm.evidence import cycle_evidence

    torch.manual_seed(0)
    task = make_task("modular_chain")
    model = LoopedLM(vocab=task.vocab, seq_len=task.seq_len, d=16, heads=2, block=2).eval()
    with pytest.raises(ValueError, match=r"^loops: 10 is too few; allowed >= 34"):
        cycle_evidence(model, task, loops=10)
