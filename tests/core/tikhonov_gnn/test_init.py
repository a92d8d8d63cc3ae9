"""The Tikhonov layer's starts: flat p (R diagonal) or the classical graph Tikhonov penalty p(λ) ≈ λ (R global),
and q set to one value on every node."""

import networkx as nx
import numpy as np
import pytest
import torch

from core.common.seeding import torch_seeded
from core.tikhonov_gnn import TikhonovConfig
from core.tikhonov_gnn.layer import TikhonovLayer
from core.tikhonov_gnn.operator import bernstein_eval

PATH = torch.tensor(nx.to_numpy_array(nx.path_graph(12)), dtype=torch.float32)[None]
MASK = torch.ones(1, 12, dtype=torch.bool)
FEATURES = torch.tensor(np.random.default_rng(0).normal(size=(1, 12, 3)), dtype=torch.float32)


def operator(layer):
    return layer.operator(FEATURES, PATH, MASK)[0].numpy()


def test_the_laplacian_start_is_p_of_lambda_close_to_lambda_and_reaches_the_whole_path():
    with torch_seeded(0):
        layer = TikhonovLayer(channels=4, q_in=3, degree=4, p_init="laplacian", q_init=0.05)
    lam = np.linspace(0.0, 2.0, 201)
    p = bernstein_eval(layer.theta.detach().numpy(), lam)
    assert np.abs(p - lam).max() < 0.05 and p[0] < 0.03            # theta_0 = 5 * 0.05 / 10.25
    R = operator(layer)
    assert R.min() > 1e-4                                             # end to end of a 12-node path: global
    # The control: the flat start (p = 1) gives R = diag(q / (1 + q)), nothing leaves its node.
    with torch_seeded(0):
        flat = TikhonovLayer(channels=4, q_in=3, degree=4)
    R = operator(flat)
    assert np.abs(R - np.diag(np.diag(R))).max() < 1e-6 and np.diag(R).min() > 0


def test_q_init_sets_q_on_every_node_where_the_default_draw_varies():
    with torch_seeded(1):
        layer = TikhonovLayer(channels=4, q_in=3, q_init=0.2, eps=1e-3)
    q = layer.qnet(FEATURES, PATH, MASK)
    np.testing.assert_allclose(q.detach().numpy(), 0.2, rtol=1e-5)
    with torch_seeded(1):
        drawn = TikhonovLayer(channels=4, q_in=3)
    assert float(drawn.qnet(FEATURES, PATH, MASK).detach().std()) > 1e-3


def test_the_default_starts_are_the_earlier_model_draw_for_draw():
    """p_init="flat" and q_init=0 consume no extra random draws: shipped checkpoints and seeds mean what they did."""
    with torch_seeded(2):
        a = TikhonovLayer(channels=4, q_in=3)
    with torch_seeded(2):
        b = TikhonovLayer(channels=4, q_in=3, p_init="flat", q_init=0.0)
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
        assert torch.equal(x, y), name
    assert torch.equal(a.theta, torch.ones(5))
    assert set(a.state_dict()) == set(TikhonovLayer(channels=4, q_in=3, scale="softplus").state_dict())
    assert "log_p_scale" not in a.state_dict()        # the shipped checkpoints load as they are


def test_the_log_scale_moves_q_against_p_which_is_all_r_sees():
    """scale="log": q = exp(.) + eps starts at q_init like softplus does, and p's learned scale exp(s) acts on R as
    dividing every q by exp(s) (R = (c p(L) + Q)^-1 Q = (p(L) + Q / c)^-1 Q / c): the closed-form scale symmetry."""
    with torch_seeded(3):
        log = TikhonovLayer(channels=4, q_in=3, p_init="laplacian", q_init=0.2, scale="log")
    with torch_seeded(3):
        soft = TikhonovLayer(channels=4, q_in=3, p_init="laplacian", q_init=0.2)
    np.testing.assert_allclose(log.qnet(FEATURES, PATH, MASK).detach().numpy(), 0.2, rtol=1e-5)
    np.testing.assert_allclose(operator(log), operator(soft), atol=1e-6)
    with torch.no_grad():
        log.log_p_scale.fill_(np.log(10.0))
    with torch_seeded(3):
        tenth = TikhonovLayer(channels=4, q_in=3, p_init="laplacian", q_init=0.02)   # every q divided by 10
    torch.testing.assert_close(log.theta, 10.0 * soft.theta)
    np.testing.assert_allclose(operator(log), operator(tenth), atol=1e-6)
    assert operator(log)[0, -1] > 2 * operator(soft)[0, -1]     # a larger p against the same q smooths farther


def test_the_learned_p_scale_receives_a_gradient():
    with torch_seeded(4):
        layer = TikhonovLayer(channels=4, q_in=3, p_init="laplacian", q_init=0.05, scale="log")
    h = torch.randn(1, 12, 4)
    z, _ = layer(h, FEATURES, PATH, MASK)
    z[0, -1].sum().backward()
    assert layer.log_p_scale.grad is not None and float(layer.log_p_scale.grad.abs()) > 0


@pytest.mark.parametrize("changes, message", [
    ({"q_init": 0.0005}, r"^q_init: 0.0005 is out of range; allowed 0 \(PyTorch's draw\) or a value above eps_q"),
    ({"q_init": -1.0}, r"^q_init: -1 is out of range; allowed in \[0, 100\]$"),
    ({"p_init": "ramp"}, r"^p_init: 'ramp' is not an option; allowed 'flat', 'laplacian'"),
    ({"scale": "linear"}, r"^scale: 'linear' is not an option; allowed 'softplus', 'log'"),
])
def test_bad_starts_name_the_field(changes, message):
    with pytest.raises(ValueError, match=message):
        TikhonovConfig(**changes)
    with pytest.raises(ValueError, match=r"^p_init: 'ramp' is not a start for p; allowed 'flat', 'laplacian'$"):
        TikhonovLayer(channels=4, q_in=3, p_init="ramp")
    with pytest.raises(ValueError, match=r"^scale: 'linear' is not a parameterisation of q and p; allowed 'softplus', "):
        TikhonovLayer(channels=4, q_in=3, scale="linear")
