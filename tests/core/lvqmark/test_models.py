"""The tokenizer's locality (shipped checkpoints and untrained), the EMA quantizer, and the training loops."""

import numpy as np
import pytest
import torch

from core.common.progress import ProgressLog
from core.lvqmark import (TokenizerConfig, load_series, load_watermarker, locality_map, make_windows, train_prior,
                          train_tokenizer)


@pytest.fixture(scope="module")
def window():
    return make_windows(load_series("energy")).test[0]


@pytest.mark.parametrize("dataset", ["energy", "fmri"])
def test_editing_a_step_moves_only_the_tokens_whose_window_holds_it_for_the_local_tokenizer(dataset):
    windows = make_windows(load_series(dataset)).test[:4]
    local_tok, global_tok = (load_watermarker(dataset, e).tokenizer for e in ("local", "global"))
    outside = 0
    for x in windows:
        local = locality_map(local_tok, x)
        assert (local.shift[~local.window] == 0).all() and (local.changed[~local.window] == 0).all()
        assert (local.shift[local.window] > 0).all()
        glob = locality_map(global_tok, x)
        # the control: every token of the global encoder moves, whatever step is edited
        assert (glob.shift > 0).mean() > 0.99
        outside += glob.changed[~glob.window].sum()
    assert outside >= 2      # and some of its codes change outside the edited step's windows


def test_locality_is_a_property_of_the_architecture_even_untrained(window):
    # Architecture, not training: an untrained local encoder is local too (and the global one is not).
    for encoder, local in (("local", True), ("global", False)):
        tok = train_tokenizer(make_windows(load_series("energy")).train[:64], TokenizerConfig(encoder=encoder, steps=2),
                              seed=0)
        m = locality_map(tok, window)
        assert ((m.shift[~m.window] == 0).all()) == local


def test_the_straight_through_estimator_reaches_the_encoder_and_the_codebook_follows_the_ema():
    x = make_windows(load_series("ett")).train[:128]
    tok = train_tokenizer(x, TokenizerConfig(steps=2, batch=32), seed=0)
    model = tok.model.train()
    before = model.quantizer.codebook.clone()
    zq, ids, commit = model.quantizer(model.encoder(torch.from_numpy(x[:32])))
    (zq ** 2).mean().backward()
    grads = [p.grad for p in model.encoder.parameters()]
    assert all(g is not None for g in grads) and sum(float(g.abs().sum()) for g in grads) > 0
    assert not torch.equal(before, model.quantizer.codebook)        # EMA update in training mode
    model.eval()


def test_a_trained_tokenizer_uses_most_of_its_codebook_and_beats_its_initialisation():
    x = make_windows(load_series("ett")).train
    log = ProgressLog()
    tok = train_tokenizer(x, TokenizerConfig(steps=150), seed=1, progress=log)
    assert len(log.steps) == 150 and tok.usage[-1] > 0.5
    stage1 = tok.loss[tok.stage == 1]
    assert stage1[-10:].mean() < 0.5 * stage1[:5].mean()


def test_a_stop_request_ends_training_early_and_the_same_seed_gives_the_same_model():
    x = make_windows(load_series("finance")).train
    log = ProgressLog(stop_after=3)
    tok = train_tokenizer(x, TokenizerConfig(steps=50), seed=2, progress=log)
    assert log.steps == [1, 2, 3] and len(tok.loss) == 3
    again = train_tokenizer(x, TokenizerConfig(steps=5), seed=2)   # steps 1-3 are stage 1 in both runs
    np.testing.assert_array_equal(tok.encode(x[:20]), again.encode(x[:20]))
    prior_log = ProgressLog(stop_after=2)
    prior = train_prior(tok.encode(x), 32, seed=0, progress=prior_log)
    assert len(prior.loss) == 2


def test_bad_configs_name_the_field():
    with pytest.raises(ValueError, match="^encoder:"):
        TokenizerConfig(encoder="convolutional")
    with pytest.raises(ValueError, match="^codebook_size:"):
        TokenizerConfig(codebook_size=33)
    with pytest.raises(ValueError, match="^windows:"):
        train_tokenizer(np.zeros((5, 24)), TokenizerConfig(steps=2))
