"""The network's structure: the deployable branch never touches the future; the losses do what they say."""

import numpy as np
import pytest

from core.common import ProgressLog
from core.latent_world_action import SimConfig, TrainConfig, make_dataset, train_policy
from core.latent_world_action.train import to_tensors

import torch  # noqa: E402

from core.latent_world_action.model import LatentWorldActionNet, alignment_loss, anti_collapse  # noqa: E402

DATA = make_dataset(2, SimConfig(steps=12), seed=0)


def batch_with_future_gradient():
    b = to_tensors(DATA)
    b["future"] = b["future"].float().requires_grad_(True)
    b["context"] = b["context"].float().requires_grad_(True)
    return b


@pytest.mark.parametrize("variant", ["prior", "no_align", "direct", "pixel"])
def test_the_action_at_inference_has_no_gradient_from_the_future_frames(variant):
    torch.manual_seed(0)
    net = LatentWorldActionNet(TrainConfig(variant=variant), 8)
    b = batch_with_future_gradient()
    action = net.act(b, torch.randn(len(DATA), 16), steps=3)
    grads = torch.autograd.grad(action.sum(), [b["future"], b["context"]], allow_unused=True)
    assert grads[0] is None                                 # the graph never reaches the future frames
    assert grads[1] is not None and float(grads[1].abs().sum()) > 0   # ... while it does read the present


def test_the_posterior_branch_does_read_the_future_the_control():
    torch.manual_seed(0)
    net = LatentWorldActionNet(TrainConfig(variant="prior"), 8)
    b = batch_with_future_gradient()
    action = net.posterior_act(b, torch.randn(len(DATA), 16), steps=3)
    (grad,) = torch.autograd.grad(action.sum(), [b["future"]])
    assert float(grad.abs().sum()) > 0


def test_stop_gradient_alignment_moves_only_the_prior_and_balanced_moves_both():
    p = torch.randn(8, 4, 16, requires_grad=True)
    q = torch.randn(8, 4, 16, requires_grad=True)
    gp, gq = torch.autograd.grad(alignment_loss(p, q, "stopgrad"), [p, q], allow_unused=True)
    assert gq is None and float(gp.abs().sum()) > 0
    gp, gq = torch.autograd.grad(alignment_loss(p, q, "balanced"), [p, q])
    assert float(gq.abs().sum()) > 0
    assert float(alignment_loss(p, p.detach().clone() * 3.0).detach()) < 1e-6    # scale-free: layer-normed latents


def test_the_anti_collapse_term_punishes_a_collapsed_latent():
    spread = torch.randn(256, 4, 8)
    collapsed = torch.randn(1, 4, 8).expand(256, -1, -1) + 1e-3 * torch.randn(256, 4, 8)
    assert float(anti_collapse(collapsed)) > 0.9 > float(anti_collapse(spread))


def test_training_stops_when_asked_and_keeps_what_it_has():
    log = ProgressLog(stop_after=2)
    t = train_policy(TrainConfig(steps=200, n_episodes=2, eval_every=200, eval_episodes=8), seed=0, data=None,
                     progress=log)
    assert log.steps == [10, 20] and t.steps.tolist() == [10, 20]


def test_the_same_seed_trains_the_same_weights():
    cfg = TrainConfig(variant="direct", steps=10, n_episodes=2, eval_episodes=8)
    a, b = train_policy(cfg, seed=3), train_policy(cfg, seed=3)
    assert all(np.array_equal(a.weights[k], b.weights[k]) for k in a.weights)
    c = train_policy(cfg, seed=4)
    assert not np.array_equal(a.weights["ctx_embed.weight"], c.weights["ctx_embed.weight"])


@pytest.mark.parametrize("kwargs, field", [
    ({"width": 60}, "width"), ({"variant": "vla"}, "variant"), ({"slots": 0}, "slots"),
    ({"align_mode": "kl"}, "align_mode"), ({"lr": 0.0}, "lr"),
])
def test_bad_configs_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed"):
        TrainConfig(**kwargs)


def test_data_with_the_wrong_number_of_future_frames_is_refused_before_training():
    with pytest.raises(ValueError, match="^data: .*; allowed"):
        train_policy(TrainConfig(slots=2, steps=1), data=DATA)
