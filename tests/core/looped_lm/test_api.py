"""The public API's contract: run_with_cache leaves the model's mode as it found it, result types export,
every entry point refuses bad input before doing anything (the field named), and the page's PCA
(:func:`core.looped_lm.principal_projection`) agrees with scikit-learn's."""

import numpy as np
import pytest
import torch

from core.common.results import result_to_dict
from core.looped_lm import (LoopAccuracy, LoopedConfig, LoopedLM, accuracy_by_hops, accuracy_by_loops, convergence_rate,
                            cycle_evidence, fixed_point_residuals, hop_stages, load_view, loop_view, make_task,
                            principal_projection, profile_causal_lm, run_with_cache, sample_loops, spectral_radius,
                            stage_view, task_of, train, train_and_view, untrained_like)
from core.looped_lm.training import build


def tiny(block: int = 2):
    torch.manual_seed(0)
    return LoopedLM(vocab=7, seq_len=6, d=16, heads=2, block=block)


@pytest.mark.parametrize("mode", [True, False])
def test_run_with_cache_restores_the_models_mode(mode):
    model = tiny().train(mode)
    ids = torch.randint(0, 7, (2, 6))
    cache = run_with_cache(model, ids, num_loops=3)
    assert model.training is mode
    assert all(m.training is mode for m in model.modules())
    with torch.no_grad():                       # the cached pass is the eval-mode forward pass
        assert torch.allclose(cache.logits, model.eval()(ids, 3), atol=1e-6)


def test_run_with_cache_restores_the_mode_when_the_pass_fails():
    model = tiny().train()
    with pytest.raises(RuntimeError):
        run_with_cache(model, torch.zeros(2, 9, dtype=torch.long), num_loops=2)   # longer than seq_len
    assert model.training
    with pytest.raises(ValueError, match="^num_loops: 0 is out of range"):
        run_with_cache(model, torch.zeros(2, 6, dtype=torch.long), num_loops=0)
    assert model.training


def test_principal_projection_matches_scikit_learns_pca():
    from sklearn.decomposition import PCA

    rng = np.random.default_rng(0)
    points = rng.standard_normal((60, 5)) @ np.diag([5.0, 3.0, 2.0, 0.5, 0.1])
    ours, sk = principal_projection(points, 3), PCA(3).fit_transform(points)
    assert np.allclose(np.abs(ours), np.abs(sk), atol=1e-8)          # equal up to each component's sign
    # Control: a projection on random orthonormal directions captures less variance than the PCA does.
    q, _ = np.linalg.qr(rng.standard_normal((5, 3)))
    random = (points - points.mean(0)) @ q
    assert random.var(0).sum() < ours.var(0).sum() - 1.0
    with pytest.raises(ValueError, match="^k: 0 is out of range"):
        principal_projection(points, 0)
    with pytest.raises(ValueError, match="^points: 1-d; allowed a 2-d array"):
        principal_projection(points[0])


def test_the_pages_trajectory_is_the_pca_of_all_loops():
    from sklearn.decomposition import PCA

    view = load_view("stable")
    flat = view.answer_states.reshape(-1, view.answer_states.shape[-1]).astype(float)
    expected = PCA(3).fit_transform(flat).reshape(view.num_loops, view.block_size, 3)
    assert np.allclose(np.abs(view.trajectory()), np.abs(expected), atol=1e-6)
    assert np.allclose(view.trajectory(5), view.trajectory()[:5])    # the first loops in the same axes


def test_loop_accuracy_reads_like_a_mapping_and_exports():
    task = task_of(LoopedConfig())
    model = build(LoopedConfig(d_model=16, heads=2), task)
    acc = accuracy_by_loops(model, task, loops=(1, 3), n=32)
    ids, targets = task.sample(32, 10_000)
    with torch.no_grad():
        by_hand = float((model(ids, 3)[:, -1].argmax(-1) == targets[:, -1]).float().mean())
    assert acc[3] == by_hand and 3 in acc and 2 not in acc and list(acc) == [1, 3]
    assert acc.to_dict() == {1: acc[1], 3: by_hand} and dict(acc.items()) == acc.to_dict()
    assert result_to_dict(acc) == {"loops": [1, 3], "accuracy": [acc[1], by_hand]}
    with pytest.raises(KeyError):
        acc[32]
    assert len(LoopAccuracy(np.zeros(0, int), np.zeros(0))) == 0


def test_bad_input_is_refused_before_anything_runs():
    config = LoopedConfig(d_model=16, heads=2)
    task = task_of(config)
    model = build(config, task)
    state = torch.random.get_rng_state()
    with pytest.raises(ValueError, match=r"^steps: -5 is out of range; allowed integers in \[1, 100000\]$"):
        train(config, steps=-5)
    with pytest.raises(ValueError, match="^steps: 0 is out of range"):     # 0 is not "use the config's steps"
        train(config, steps=0)
    assert torch.equal(torch.random.get_rng_state(), state)                 # nothing was built
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="^mean_recurrence: 0 is out of range"):
        sample_loops(0, 4, rng)
    with pytest.raises(ValueError, match="^backprop_depth: 0 is out of range"):
        sample_loops(6, 0, rng)
    assert rng.bit_generator.state == before
    with pytest.raises(ValueError, match="^loops: 0 is out of range"):
        accuracy_by_loops(model, task, loops=(1, 0))
    with pytest.raises(ValueError, match="^loops: empty"):
        accuracy_by_hops(model, task, loops=())
    with pytest.raises(ValueError, match="^n: 0 is out of range"):
        accuracy_by_hops(model, task, n=0)
    with pytest.raises(ValueError, match="^n: 0 is out of range"):
        loop_view(model, task, n=0)
    with pytest.raises(ValueError, match="^n: 1 is out of range"):
        stage_view(model, model, task, n=1)
    with pytest.raises(ValueError, match="^n: 0 is out of range"):
        cycle_evidence(model, task, n=0)
    pointer = make_task("pointer_chasing", length=3, nodes=5)
    with pytest.raises(ValueError, match="^loops: 0 is out of range"):
        hop_stages(model, model, pointer, loops=0)
    with pytest.raises(ValueError, match="^k: 0 is out of range"):
        spectral_radius(lambda s: s, torch.ones(4), k=0)
    with pytest.raises(ValueError, match="^reduce: 'max' is not an option"):
        fixed_point_residuals(torch.ones(3, 1, 2, 4), reduce="max")
    with pytest.raises(ValueError, match="^start: the window"):
        convergence_rate(np.ones((5, 2)), start=4)
    with pytest.raises(ValueError, match="^max_tokens: 1 is out of range"):
        profile_causal_lm("/nowhere", max_tokens=1)
    with pytest.raises(ValueError, match="^config: a dict; allowed a LoopedConfig"):
        train_and_view({"steps": 3})
    with pytest.raises(ValueError, match="^model: has no config"):
        untrained_like(model)


def test_the_models_refuse_a_design_they_do_not_have():
    from core.looped_lm import FeedforwardLM

    with pytest.raises(ValueError, match="^injection: 'gated' is not an option; allowed 'concat', 'additive', 'none'"):
        LoopedLM(vocab=7, seq_len=6, d=16, heads=2, injection="gated")
    with pytest.raises(ValueError, match="^norm: 'layer' is not an option"):
        LoopedLM(vocab=7, seq_len=6, d=16, heads=2, norm="layer")
    with pytest.raises(ValueError, match="^heads: 3 does not divide d=16"):
        LoopedLM(vocab=7, seq_len=6, d=16, heads=3)
    with pytest.raises(ValueError, match="^block: 0 is out of range"):
        LoopedLM(vocab=7, seq_len=6, d=16, heads=2, block=0)
    with pytest.raises(ValueError, match="^depth: 0 is out of range"):
        FeedforwardLM(vocab=7, seq_len=6, d=16, heads=2, depth=0)
    with pytest.raises(ValueError, match="^norm: 'loop' is not an option"):   # a feedforward model has no loop
        FeedforwardLM(vocab=7, seq_len=6, d=16, heads=2, norm="loop")


def test_the_builder_command_refuses_an_unknown_checkpoint_before_training(monkeypatch):
    from core.looped_lm import pretrained, ship

    monkeypatch.setattr(pretrained, "ship", lambda name: pytest.fail("trained"))
    with pytest.raises(ValueError, match="^name: 'wobbly' is not an option; allowed 'stable'"):
        ship.main(["checkpoints", "stable", "wobbly"])
    written = []
    monkeypatch.setattr(pretrained, "ship", written.append)
    ship.main(["checkpoints", "pointer"])
    assert written == ["pointer"]
    written.clear()
    ship.main(["checkpoints"])                  # by default every shipped model, the pointer control included
    assert written == list(pretrained.SHIPPED) and "pointer_shuffled" in written
