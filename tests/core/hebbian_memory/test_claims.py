"""The paper's headline claims on the shipped networks, each with the control that must fail it."""

import numpy as np
import pytest

from core.hebbian_memory import (boundary_score, evaluate_recall, load_model, ordinal_geometry, rank_recall_episodes,
                                 untrained_like, untrained_predictor)
from core.hebbian_memory.ship import MODELS, shipped_summary, shipped_view

pytestmark = pytest.mark.claim


@pytest.fixture(scope="module")
def nets():
    return {name: load_model(MODELS / name) for name in ("plastic", "nonplastic", "lstm", "plastic_predicted")}


def test_the_plastic_network_recalls_novel_bindings_where_the_alpha_zero_control_cannot(nets):
    plastic = evaluate_recall(nets["plastic"], 256, seed=99)        # episodes the shipped summary never saw
    control = evaluate_recall(nets["nonplastic"], 256, seed=99)
    lstm = evaluate_recall(nets["lstm"], 256, seed=99)
    assert plastic.accuracy > 0.8
    assert control.accuracy < control.chance + 0.1
    assert lstm.accuracy < plastic.accuracy - 0.3
    lesioned = untrained_like(nets["plastic"])                        # the trained weights with the trace off
    lesioned.net.load_state_dict(nets["plastic"].net.state_dict())
    import torch
    with torch.no_grad():
        lesioned.net.tensors["alpha"].zero_()
    assert evaluate_recall(lesioned, 256, seed=99).accuracy < plastic.chance + 0.1   # recall lives in the trace


def test_the_untrained_networks_geometry_fails_the_claim_thresholds(nets):
    g = ordinal_geometry(untrained_like(nets["plastic"]), 150, seed=5)
    meets = [g.cos_axes < 0.3, g.top2 > 0.7, min(g.ccgp_position, g.ccgp_chunk) > 0.7]
    assert not all(meets)
    assert g.ccgp_chunk < 0.5          # an untrained reservoir cannot count chunks (chance 1/3)


def test_surprise_marks_word_boundaries_and_the_untrained_predictor_does_not(nets):
    pred = nets["plastic_predicted"]
    ep = rank_recall_episodes(pred.task, 100, seed=17, lexicon=pred.lexicon, predictor=pred.predictor)
    trained = boundary_score(pred.predictor, ep.tokens, ep.boundaries)
    control = boundary_score(untrained_predictor(pred.lexicon, pred.predictor.threshold), ep.tokens, ep.boundaries)
    assert trained.f1 > 0.8 and trained.surprise_at_boundary > trained.surprise_within + 1.0
    assert control.f1 < 0.8 and abs(control.surprise_at_boundary - control.surprise_within) < 1e-9
    np.testing.assert_array_equal(ep.cue, pred.predictor.boundaries(ep.tokens))   # the network's only chunk signal


def test_the_shipped_summary_recomputes(nets):
    summary, view = shipped_summary(), shipped_view()
    again = evaluate_recall(nets["plastic"], 512)
    assert abs(again.accuracy - summary["recall"]["plastic"]["accuracy"]) < 1e-12
    assert view["trace"].shape[1:] == (24, 24) and len(view["trace"]) == nets["plastic"].task.steps
