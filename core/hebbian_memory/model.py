"""The Hebb-RNN: a tanh RNN whose recurrent weights carry a fast Hebbian trace (Backpropamine form).

For a batch of episodes, with ``h_0 = 0`` and ``H_0 = 0`` at the start of every episode::

    h_t   = tanh(W_in x_t + b + (W + α ⊙ H_{t-1}) h_{t-1})
    η_t   = tanh(w_mod · h_t + b_mod)                       (neuromodulated rate, one scalar per step)
    H_t   = clip((1 - λ) H_{t-1} + η_t h_t pre_tᵀ, -c, c)   (post × pre outer product)
    y_t   = W_out h_t + b_out

with ``pre_t = h_{t-1}`` (default: Backpropamine's maze code, post × pre) or ``pre_t = h_t``
(``coactivity="same-step"``, the co-activity of Ba et al.'s fast weights, 2016). In a quick trial
(seed 0, 1000 meta-training steps) only the default left chance; the same-step form stayed there. W_in, b, W, α (one plasticity coefficient per synapse), w_mod, b_mod, the decay λ = sigmoid(ℓ) and
the readout are meta-trained by BPTT; H is the fast, per-episode memory. With α = 0 this is
``torch.nn.RNN(nonlinearity='tanh')`` (with ``b_ih = b``, ``b_hh = 0``), checked in the tests. The
non-plastic control is the same network with α fixed at 0; the LSTM control is ``torch.nn.LSTM``
with a linear readout. Ours: the clip value c (2, as in Backpropamine's maze code), the scalar
neuromodulator, the initialisations (α ~ U(0, 0.2), λ = sigmoid(-3) ≈ 0.05).
torch is imported inside the functions, so importing this module stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.common.config import Config, choice, param
from core.common.seeding import torch_seeded

if TYPE_CHECKING:
    import torch

KINDS = ("plastic", "nonplastic", "lstm")
COACTIVITY = ("same-step", "pre-post")
KIND_LABELS = {"plastic": "Hebb-RNN (plastic)", "nonplastic": "RNN, α = 0 (non-plastic)", "lstm": "LSTM"}


@dataclass(frozen=True)
class ModelConfig(Config):
    """The network: which kind, its width and the trace's clip.

    Examples
    --------
    >>> ModelConfig(kind="lstm").hidden
    64
    """

    kind: str = choice("plastic", KINDS, doc="Hebb-RNN, its α = 0 control, or an LSTM")
    hidden: int = param(64, low=4, high=512, integer=True, doc="recurrent units")
    clip: float = param(2.0, low=0.0, high=100.0, low_open=True, doc="the Hebbian trace is clipped to [-clip, clip]")
    coactivity: str = choice("pre-post", COACTIVITY, doc="Hebbian co-activity: h_t h_tᵀ (fast weights) or "
                                                         "h_t h_{t-1}ᵀ (Backpropamine's post × pre)")


def hebbian_step(trace, h_prev, h, eta, decay: float, clip: float) -> np.ndarray | torch.Tensor:
    """One update of the fast trace: ``clip((1 - λ) H + η h h_prevᵀ, -c, c)``.

    Parameters
    ----------
    trace : torch.Tensor or ndarray, shape (batch, N, N)
        ``H_{t-1}`` (rows post-synaptic, columns pre-synaptic).
    h_prev : torch.Tensor or ndarray, shape (batch, N)
        Pre-synaptic activity ``h_{t-1}``.
    h : torch.Tensor or ndarray, shape (batch, N)
        Post-synaptic activity ``h_t``.
    eta : torch.Tensor or ndarray, shape (batch,)
        The neuromodulated rate ``η_t``.
    decay : float or torch.Tensor
        λ in [0, 1].
    clip : float
        c > 0.

    Returns
    -------
    torch.Tensor or ndarray
        ``H_t``, of the input's type.

    Examples
    --------
    >>> H = hebbian_step(np.zeros((1, 2, 2)), np.array([[1.0, 0.0]]), np.array([[0.5, -1.0]]), np.array([2.0]), 0.1, 2.0)
    >>> H[0].tolist()
    [[1.0, 0.0], [-2.0, 0.0]]
    """
    update = eta[:, None, None] * h[:, :, None] * h_prev[:, None, :]
    new = (1 - decay) * trace + update
    return new.clamp(-clip, clip) if hasattr(new, "clamp") else np.clip(new, -clip, clip)


@dataclass
class Trajectory:
    """What a forward pass records.

    Attributes
    ----------
    outputs : torch.Tensor, shape (batch, steps, out_dim)
        The readout ``y_t``.
    hidden : torch.Tensor, shape (batch, steps, N)
        ``h_t``.
    traces : torch.Tensor or None, shape (steps, N, N)
        ``H_t`` of the first episode at every step (when asked for, plastic kinds only).
    eta : torch.Tensor or None, shape (batch, steps)
        The neuromodulated rate (plastic kinds only).
    """

    outputs: object
    hidden: object
    traces: object = None
    eta: object = None


class RecurrentMemory:
    """A Hebb-RNN, its non-plastic control, or an LSTM, as named tensors with a forward pass.

    Parameters
    ----------
    config : ModelConfig
        Kind, width and clip.
    input_dim : int
        Input size per step.
    output_dim : int
        Readout size (the item dimension).
    seed : int
        Seed of the initial weights.

    Examples
    --------
    >>> net = RecurrentMemory(ModelConfig(hidden=8), input_dim=5, output_dim=3, seed=0)
    >>> import torch
    >>> tuple(net.forward(torch.zeros(2, 4, 5)).outputs.shape)
    (2, 4, 3)
    """

    def __init__(self, config: ModelConfig, input_dim: int, output_dim: int, seed: int):
        import torch

        self.config, self.input_dim, self.output_dim = config, int(input_dim), int(output_dim)
        N = config.hidden
        with torch_seeded(seed):
            if config.kind == "lstm":
                self.lstm = torch.nn.LSTM(input_dim, N, batch_first=True)
                readout = torch.nn.Linear(N, output_dim)
                self.tensors = {f"lstm.{k}": v for k, v in self.lstm.named_parameters()}
                self.tensors.update({"W_out": readout.weight, "b_out": readout.bias})
            else:
                rnn = torch.nn.RNN(input_dim, N, nonlinearity="tanh", batch_first=True)
                readout = torch.nn.Linear(N, output_dim)
                self.tensors = {"W_in": rnn.weight_ih_l0.detach().clone(), "b": rnn.bias_ih_l0.detach().clone(),
                                "W": rnn.weight_hh_l0.detach().clone(),
                                "W_out": readout.weight.detach().clone(), "b_out": readout.bias.detach().clone()}
                if config.kind == "plastic":
                    self.tensors.update({"alpha": 0.2 * torch.rand(N, N), "w_mod": torch.randn(N) / np.sqrt(N),
                                         "b_mod": torch.zeros(1), "decay_logit": torch.full((1,), -3.0)})
                for t in self.tensors.values():
                    t.requires_grad_(True)

    def parameters(self) -> list:
        return list(self.tensors.values())

    def state_dict(self) -> dict:
        return {k: v.detach().clone() for k, v in self.tensors.items()}

    def load_state_dict(self, state: dict) -> None:
        import torch

        with torch.no_grad():
            for k, v in self.tensors.items():
                v.copy_(state[k])

    def forward(self, inputs, record_trace: bool = False) -> Trajectory:
        """Run a batch of episodes, the fast trace reset to zero at the start of each."""
        import torch

        p = self.tensors
        if self.config.kind == "lstm":
            hidden, _ = self.lstm(inputs)
            return Trajectory(hidden @ p["W_out"].T + p["b_out"], hidden)
        B, T, _ = inputs.shape
        N = self.config.hidden
        drive = inputs @ p["W_in"].T + p["b"]
        h = inputs.new_zeros(B, N)
        plastic = self.config.kind == "plastic"
        H = inputs.new_zeros(B, N, N) if plastic else None
        decay = torch.sigmoid(p["decay_logit"]) if plastic else None
        hs, etas, traces = [], [], []
        for t in range(T):
            rec = h @ p["W"].T
            if plastic:
                rec = rec + torch.einsum("bij,bj->bi", p["alpha"] * H, h)
            h_new = torch.tanh(drive[:, t] + rec)
            if plastic:
                eta = torch.tanh(h_new @ p["w_mod"] + p["b_mod"])
                pre = h_new if self.config.coactivity == "same-step" else h
                H = hebbian_step(H, pre, h_new, eta, decay, self.config.clip)
                etas.append(eta)
                if record_trace:
                    traces.append(H[0].detach().clone())
            h = h_new
            hs.append(h)
        hidden = torch.stack(hs, dim=1)
        return Trajectory(hidden @ p["W_out"].T + p["b_out"], hidden,
                          torch.stack(traces) if traces else None, torch.stack(etas, dim=1) if etas else None)
