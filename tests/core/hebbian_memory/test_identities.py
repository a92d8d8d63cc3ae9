"""The Hebb-RNN's pieces against hand computation and independent references (torch.nn.RNN, counts, closed forms)."""

import numpy as np
import torch

from core.hebbian_memory import (ModelConfig, PredictorConfig, RecurrentMemory, TaskConfig, hebbian_step,
                                 make_lexicon, rank_recall_episodes, train_predictor, word_stream)
from core.hebbian_memory.geometry import axes_metrics, cross_condition


def test_one_hebbian_step_equals_the_hand_computed_update():
    H = np.array([[[0.5, -1.0], [1.9, 0.0]]])
    pre, post, eta, lam, c = np.array([[1.0, -2.0]]), np.array([[0.5, 1.0]]), np.array([0.8]), 0.1, 2.0
    # by hand: (1 - 0.1) H + 0.8 * post ⊗ pre, then clipped to [-2, 2]
    hand = np.array([[0.45 + 0.4, -0.9 - 0.8], [1.71 + 0.8, 0.0 - 1.6]])
    hand = np.clip(hand, -2, 2)
    np.testing.assert_allclose(hebbian_step(H, pre, post, eta, lam, c)[0], hand)
    assert hand[1, 0] == 2.0     # the clip acted
    torch_out = hebbian_step(torch.tensor(H), torch.tensor(pre), torch.tensor(post), torch.tensor(eta), lam, c)
    np.testing.assert_allclose(torch_out.numpy()[0], hand)


def numpy_forward(p, x, coactivity, clip):
    """An independent re-implementation of the module docstring's equations, for one episode."""
    N = p["W"].shape[0]
    h, H, hs = np.zeros(N), np.zeros((N, N)), []
    lam = 1 / (1 + np.exp(-p["decay_logit"][0]))
    for xt in x:
        h_new = np.tanh(p["W_in"] @ xt + p["b"] + (p["W"] + p["alpha"] * H) @ h)
        eta = np.tanh(p["w_mod"] @ h_new + p["b_mod"][0])
        pre = h_new if coactivity == "same-step" else h
        H = np.clip((1 - lam) * H + eta * np.outer(h_new, pre), -clip, clip)
        h = h_new
        hs.append(h)
    return np.array(hs)


def test_the_plastic_forward_pass_equals_the_equations_for_both_coactivity_rules():
    x = np.random.default_rng(0).normal(size=(6, 5))
    for rule in ("same-step", "pre-post"):
        net = RecurrentMemory(ModelConfig(hidden=7, coactivity=rule, clip=0.3), 5, 2, seed=1)
        with torch.no_grad():
            net.tensors["alpha"].mul_(5.0)            # make the plastic term matter
        p = {k: v.detach().double().numpy() for k, v in net.tensors.items()}
        ours = net.forward(torch.tensor(x[None], dtype=torch.float32)).hidden[0].detach().numpy()
        np.testing.assert_allclose(ours, numpy_forward(p, x, rule, 0.3), atol=1e-5)
        without = p | {"alpha": np.zeros_like(p["alpha"])}
        assert np.abs(numpy_forward(without, x, rule, 0.3) - ours).max() > 1e-3   # the trace changed the states


def test_with_alpha_zero_the_network_is_torch_rnn_with_the_same_weights():
    net = RecurrentMemory(ModelConfig(hidden=9), 6, 3, seed=2)
    with torch.no_grad():
        net.tensors["alpha"].zero_()
    rnn = torch.nn.RNN(6, 9, nonlinearity="tanh", batch_first=True)
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(net.tensors["W_in"])
        rnn.weight_hh_l0.copy_(net.tensors["W"])
        rnn.bias_ih_l0.copy_(net.tensors["b"])
        rnn.bias_hh_l0.zero_()
    x = torch.randn(4, 11, 6, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        ours, ref = net.forward(x).hidden, rnn(x)[0]
    assert torch.allclose(ours, ref, atol=1e-6)
    control = RecurrentMemory(ModelConfig(kind="nonplastic", hidden=9), 6, 3, seed=2)
    assert "alpha" not in control.tensors
    with torch.no_grad():
        assert torch.allclose(control.forward(x).hidden, ours, atol=1e-6)   # same init seed, no trace


def test_episodes_probe_the_rank_they_name_and_the_successor_task_shifts_it():
    for task in ("recall", "successor"):
        cfg = TaskConfig(task=task)
        ep = rank_recall_episodes(cfg, 8, seed=3)
        D, C = cfg.item_dim, cfg.n_chunks
        rows, cols = np.nonzero(ep.targets >= 0)
        for b, t in zip(rows, cols):
            cue = ep.inputs[b, t - 1]
            rank = np.argmax(cue[D + 1:D + 1 + C]) * cfg.chunk_size + np.argmax(cue[D + 1 + C:D + 1 + C + cfg.chunk_size])
            assert ep.targets[b, t] == rank + (task == "successor")
            np.testing.assert_allclose(ep.inputs[b, ep.targets[b, t], :D], ep.items[b, ep.targets[b, t]] * np.sqrt(D))
        assert len(set(ep.targets[0][ep.targets[0] >= 0])) == cfg.probes        # distinct ranks
    explicit, none = rank_recall_episodes(TaskConfig(), 2, 0), rank_recall_episodes(TaskConfig(cues="none"), 2, 0)
    assert explicit.inputs[0, :9, 32].tolist() == [1, 0, 0] * 3 and none.inputs[:, :, 32].sum() == 0


def test_the_trained_predictor_matches_the_streams_transition_frequencies():
    cfg = TaskConfig(items="lexicon")
    lex = make_lexicon(cfg, 0)
    pred = train_predictor(lex, PredictorConfig(n_words=3000, lr=0.5), seed=1)
    stream = word_stream(lex, 3000, seed=1)
    counts = np.zeros((lex.n_tokens, lex.n_tokens))
    np.add.at(counts, (stream[:-1], stream[1:]), 1)
    freq = counts / counts.sum(axis=1, keepdims=True)
    p = pred.probabilities()[:-1]
    within = lex.words[:, :-1].ravel()          # syllables followed inside their word
    ends = lex.words[:, -1]                     # word-final syllables: the next word is random
    assert np.abs(p[within] - freq[within]).max() < 0.05
    starts = lex.words[:, 0]
    # a fixed SGD step leaves noise of order lr on the rows followed by a random word: mean, not max
    assert np.abs(p[np.ix_(ends, starts)] - freq[np.ix_(ends, starts)]).mean() < 0.05
    assert p[np.ix_(ends, starts)].sum(axis=1).min() > 0.9    # nearly all mass on word starts


def test_axes_metrics_on_a_factorised_grid_and_on_a_one_dimensional_serial_code():
    e = np.eye(5)
    grid = np.array([[c * e[0] + j * e[1] for j in range(3)] for c in range(3)])
    cos, top2, coords, explained = axes_metrics(grid)
    assert cos < 1e-12 and abs(top2 - 1) < 1e-12 and abs(explained.sum() - 1) < 1e-12
    line = np.array([[(3 * c + j) * e[0] for j in range(3)] for c in range(3)])   # rank 1..9 on one line
    cos_line, top2_line, _, _ = axes_metrics(line)
    assert abs(cos_line - 1) < 1e-12 and top2_line > 0.99      # 2-D-ness alone cannot tell a line from a grid


def test_cross_condition_decoding_generalises_only_for_a_factorised_code():
    rng = np.random.default_rng(0)
    c, j = np.repeat(np.arange(3), 300), np.tile(np.repeat(np.arange(3), 100), 3)
    basis = rng.normal(size=(4, 20))
    factorised = np.outer(c, basis[0]) + np.outer(j, basis[1]) + 0.3 * rng.normal(size=(900, 20))
    assert cross_condition(factorised, j, c) > 0.95 and cross_condition(factorised, c, j) > 0.95
    lookup = rng.normal(size=(9, 20)) * 3                    # every condition its own random pattern
    conjunctive = lookup[3 * c + j] + 0.3 * rng.normal(size=(900, 20))
    assert cross_condition(conjunctive, j, c) < 0.7
