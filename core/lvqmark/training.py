"""Training the tokenizer, the token prior and the robust encoder; generation with and without the watermark.

Choices that are ours (the reference trains for hours on GPUs; these are sized for a laptop CPU):
codebook K = 32, code dimension 16, width 32, Adam, batches of 64; the tokenizer's stage 1 (encoder,
codebook, local decoder) and stage 2 (global decoder, the rest frozen) share one ``steps`` budget
(60/40), and stage 2 adds an idempotence loss (encode(decode(codes)) = codes, on real and on
uniformly random code sequences). The robust encoder learns to map *decoded* series (the generator's own output distribution),
attacked by a random attack of the training grid (or left clean), back to the codes they were decoded
from: the clean tokens a detector needs to recover.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import check_seed, derive_rng, derive_seed, make_torch_generator, torch_seeded
from core.lvqmark.attacks import ATTACKS, attack
from core.lvqmark.model import RobustEncoder, Tokenizer, TokenPrior, unfold_windows
from core.lvqmark.watermark import logit_bias

ENCODERS = ("local", "global")
ROBUST_GRID = (0.05, 0.1, 0.2, 0.3)


@dataclass(frozen=True)
class TokenizerConfig(Config):
    """The tokenizer: which encoder, the codebook and the training budget."""

    encoder: str = choice("local", ENCODERS, doc="local: L-VQVAE windows (rf 4, stride 2); global: full attention")
    codebook_size: int = param(32, low=4, high=512, integer=True, doc="codes K (even)")
    code_dim: int = param(16, low=2, high=128, integer=True, doc="dimension of a code vector")
    d_model: int = param(32, low=8, high=128, integer=True, doc="width of the encoder and decoders")
    steps: int = param(400, low=2, high=20000, integer=True, doc="optimisation steps (60% stage 1, 40% stage 2)")
    lr: float = param(3e-3, low=0.0, high=1.0, low_open=True, doc="Adam learning rate")
    batch: int = param(64, low=2, high=1024, integer=True, doc="windows per step")
    commitment: float = param(0.25, low=0.0, high=10.0, doc="weight of the commitment loss")
    dead_after: int = param(50, low=1, high=10000, integer=True, doc="steps unused before a code is reset")
    cycle: float = param(1.0, low=0.0, high=100.0, doc="weight of the stage-2 idempotence loss (ours)")

    def validate(self) -> None:
        if self.codebook_size % 2:
            raise ValueError(f"codebook_size: {self.codebook_size} is odd; allowed even sizes in [4, 512]")


@dataclass(frozen=True)
class PriorConfig(Config):
    """The causal transformer prior over codes."""

    d_model: int = param(32, low=8, high=128, integer=True, doc="transformer width")
    layers: int = param(2, low=1, high=6, integer=True, doc="transformer layers")
    steps: int = param(400, low=1, high=20000, integer=True, doc="optimisation steps")
    lr: float = param(3e-3, low=0.0, high=1.0, low_open=True, doc="Adam learning rate")
    batch: int = param(64, low=2, high=1024, integer=True, doc="sequences per step")
    replace: float = param(0.1, low=0.0, high=0.9, doc="share of input codes replaced at random (augmentation)")


@dataclass(frozen=True)
class RobustConfig(Config):
    """The robust re-encoder: attacked series back to clean codes."""

    d_model: int = param(32, low=8, high=128, integer=True, doc="encoder width")
    steps: int = param(400, low=1, high=20000, integer=True, doc="optimisation steps")
    lr: float = param(3e-3, low=0.0, high=1.0, low_open=True, doc="Adam learning rate")
    batch: int = param(64, low=2, high=1024, integer=True, doc="windows per step")
    random_share: float = param(0.5, low=0.0, high=1.0, doc="share of each batch decoded from uniformly random "
                                "codes (so that watermarked, off-prior code sequences are covered)")


@dataclass
class TrainedTokenizer:
    """A trained tokenizer and its training curves.

    Attributes
    ----------
    model : torch.nn.Module
        The :class:`~core.lvqmark.model.Tokenizer`.
    config : TokenizerConfig
        How it was built.
    n_vars : int
        Variables per step.
    loss : numpy.ndarray
        Reconstruction loss per step (stage 1 window loss, then stage 2 series loss).
    usage : numpy.ndarray
        Share of codes used by each stage-1 batch.
    stage : numpy.ndarray
        1 or 2 per step.
    """

    model: nn.Module
    config: TokenizerConfig
    n_vars: int
    loss: np.ndarray
    usage: np.ndarray
    stage: np.ndarray

    def encode(self, x: np.ndarray) -> np.ndarray:
        return self.model.encode(torch.as_tensor(np.asarray(x, np.float32))).numpy()

    def decode(self, ids: np.ndarray) -> np.ndarray:
        return self.model.decode(torch.as_tensor(np.asarray(ids, np.int64))).numpy()

    def embed(self, x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.model.encoder(torch.as_tensor(np.asarray(x, np.float32))).numpy()


def _cycle_loss(model: nn.Module, series: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of re-encoding the decoded series back to ``ids`` (softmax over minus squared distances).

    Ours: it trains the global decoder so that encode(decode(codes)) = codes, for real code sequences and
    for uniformly random ones (watermarked sequences are off the prior), with the encoder frozen.
    """
    z = model.encoder(series)
    d = (z.pow(2).sum(-1, keepdim=True) - 2 * z @ model.quantizer.codebook.T + model.quantizer.codebook.pow(2).sum(1))
    return nn.functional.cross_entropy(-d.reshape(-1, d.shape[-1]), ids.reshape(-1))


def _batches(n: int, batch: int, steps: int, seed: int):
    rng = derive_rng(seed, "batches")
    for _ in range(steps):
        yield rng.integers(0, n, size=min(batch, n))


def train_tokenizer(windows: np.ndarray, config: TokenizerConfig = TokenizerConfig(), seed: int = 0,
                    progress=None) -> TrainedTokenizer:
    """Train an L-VQVAE (or the global-encoder baseline) on windows ``(n, T, D)``.

    Parameters
    ----------
    windows : numpy.ndarray
        Training windows in [-1, 1].
    config : TokenizerConfig
        Encoder kind, codebook and budget.
    seed : int
        Seeds the weights, the batches and the dead-code resets.
    progress : callable or None
        ``progress(step, total, metrics)``; returning False stops and returns the model so far.

    Returns
    -------
    TrainedTokenizer
        The model and its curves.

    Examples
    --------
    >>> x = np.random.default_rng(0).uniform(-1, 1, (32, 24, 2)).astype(np.float32)
    >>> tok = train_tokenizer(x, TokenizerConfig(steps=4, batch=8), seed=0)
    >>> tok.encode(x[:3]).shape, len(tok.loss)
    ((3, 11), 4)
    """
    x = np.asarray(windows, np.float32)
    if x.ndim != 3 or len(x) < 2:
        raise ValueError(f"windows: shape {x.shape}; allowed (n >= 2, T, D)")
    seed = check_seed(seed)
    with torch_seeded(derive_seed(seed, "tokenizer")):
        model = Tokenizer(config.encoder, x.shape[2], x.shape[1], config.codebook_size, config.code_dim,
                          config.d_model, dead_after=config.dead_after)
    X = torch.from_numpy(x)
    gen = make_torch_generator(derive_seed(seed, "resets"))
    with torch.no_grad():   # codebook initialised from encoder outputs, so no code starts far away
        z = model.encoder(X[:512]).reshape(-1, config.code_dim)
        pick = torch.randint(0, len(z), (config.codebook_size,), generator=gen)
        model.quantizer.codebook.copy_(z[pick])
        model.quantizer.embed_sum.copy_(z[pick])
    stage1 = max(1, int(round(0.6 * config.steps)))
    opt1 = torch.optim.Adam(list(model.encoder.parameters()) + list(model.local_decoder.parameters()), lr=config.lr)
    opt2 = torch.optim.Adam(model.global_decoder.parameters(), lr=config.lr)
    losses, usage, stage = [], [], []
    for step, idx in enumerate(_batches(len(x), config.batch, config.steps, seed), start=1):
        xb = X[torch.from_numpy(idx)]
        if step <= stage1:
            model.train()
            zq, ids, commit = model.quantizer(model.encoder(xb), gen)
            recon = torch.mean((model.local_decoder(zq) - unfold_windows(xb)) ** 2)
            loss = recon + config.commitment * commit
            opt1.zero_grad()
            loss.backward()
            opt1.step()
            usage.append(len(torch.unique(ids)) / config.codebook_size)
            stage.append(1)
        else:
            model.eval()
            with torch.no_grad():
                ids = model.encode(xb)
                rand = torch.randint(0, config.codebook_size, ids.shape, generator=gen)
            both = torch.cat([ids, rand])
            out = model.global_decoder(model.quantizer.codebook[both])
            recon = torch.mean((out[:len(ids)] - xb) ** 2)
            loss = recon + config.cycle * _cycle_loss(model, out, both)
            opt2.zero_grad()
            loss.backward()
            opt2.step()
            usage.append(usage[-1] if usage else 0.0)
            stage.append(2)
        losses.append(float(recon.detach()))
        if not report(progress, step, config.steps, {"loss": losses[-1], "code usage": usage[-1],
                                                     "stage": stage[-1]}):
            break
    model.eval()
    return TrainedTokenizer(model, config, x.shape[2], np.array(losses), np.array(usage), np.array(stage))


@dataclass
class TrainedPrior:
    """A trained token prior.

    Attributes
    ----------
    model : torch.nn.Module
        The :class:`~core.lvqmark.model.TokenPrior`.
    config : PriorConfig
        How it was built.
    codebook_size : int
        K.
    n_tokens : int
        Sequence length N.
    loss : numpy.ndarray
        Cross-entropy per step.
    """

    model: nn.Module
    config: PriorConfig
    codebook_size: int
    n_tokens: int
    loss: np.ndarray


def train_prior(tokens: np.ndarray, codebook_size: int, config: PriorConfig = PriorConfig(), seed: int = 0,
                progress=None) -> TrainedPrior:
    """Fit the causal transformer prior on code sequences ``(n, N)`` by next-code cross-entropy.

    Parameters
    ----------
    tokens : numpy.ndarray
        Codes of the training windows.
    codebook_size : int
        K.
    config : PriorConfig
        Width, depth and budget.
    seed : int
        Seeds weights, batches and the replacement augmentation.
    progress : callable or None
        ``progress(step, total, metrics)``; False stops.

    Returns
    -------
    TrainedPrior
        The model and its loss curve.

    Examples
    --------
    >>> ids = np.random.default_rng(0).integers(0, 8, (40, 11))
    >>> prior = train_prior(ids, 8, PriorConfig(steps=3, batch=8), seed=0)
    >>> prior.n_tokens, len(prior.loss)
    (11, 3)
    """
    ids = np.asarray(tokens, np.int64)
    if ids.ndim != 2 or len(ids) < 2:
        raise ValueError(f"tokens: shape {ids.shape}; allowed (n >= 2, N)")
    seed = check_seed(seed)
    with torch_seeded(derive_seed(seed, "prior")):
        model = TokenPrior(codebook_size, ids.shape[1], config.d_model, layers=config.layers)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    gen = make_torch_generator(derive_seed(seed, "replace"))
    T = torch.from_numpy(ids)
    losses = []
    model.train()
    for step, idx in enumerate(_batches(len(ids), config.batch, config.steps, seed), start=1):
        target = T[torch.from_numpy(idx)]
        inp = target.clone()
        swap = torch.rand(inp.shape, generator=gen) < config.replace
        inp[swap] = torch.randint(0, codebook_size, (int(swap.sum()),), generator=gen)
        logits = model(inp[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, codebook_size), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        if not report(progress, step, config.steps, {"cross-entropy": losses[-1]}):
            break
    model.eval()
    return TrainedPrior(model, config, codebook_size, ids.shape[1], np.array(losses))


@torch.no_grad()
def sample_tokens(prior: TrainedPrior, n: int, delta: float, key: int, seed: int = 0,
                  temperature: float = 1.0) -> np.ndarray:
    """Sample ``n`` code sequences, adding the green-list bias delta to the logits after the warm-up.

    Parameters
    ----------
    prior : TrainedPrior
        The prior.
    n : int
        Sequences.
    delta : float
        The logit bias (0: no watermark).
    key : int
        The watermark key.
    seed : int
        Seed of the sampling.
    temperature : float
        Softmax temperature, > 0.

    Returns
    -------
    numpy.ndarray
        ``(n, N)`` codes.

    Examples
    --------
    >>> ids = np.random.default_rng(0).integers(0, 8, (20, 11))
    >>> prior = train_prior(ids, 8, PriorConfig(steps=1, batch=4), seed=0)
    >>> sample_tokens(prior, 5, delta=2.0, key=1, seed=0).shape
    (5, 11)
    """
    from core.common.config import check_range

    n = check_range("n", n, 1, 100000, integer=True)
    temperature = check_range("temperature", temperature, 0.0, 10.0, low_open=True)
    bias = torch.from_numpy(logit_bias(prior.codebook_size, prior.n_tokens, key, delta))
    gen = make_torch_generator(derive_seed(check_seed(seed), "sample"))
    ids = torch.zeros((n, 0), dtype=torch.long)
    for pos in range(prior.n_tokens):
        logits = prior.model(ids)[:, -1] / temperature + bias[pos]
        nxt = torch.multinomial(torch.softmax(logits, -1), 1, generator=gen)
        ids = torch.cat([ids, nxt], 1)
    return ids.numpy()


@dataclass
class TrainedRobust:
    """A trained robust re-encoder.

    Attributes
    ----------
    model : torch.nn.Module
        The :class:`~core.lvqmark.model.RobustEncoder`.
    config : RobustConfig
        How it was built.
    encoder : str
        ``local`` or ``global``: the front end, the same kind as its tokenizer's.
    loss : numpy.ndarray
        Cross-entropy per step.
    accuracy : numpy.ndarray
        Share of codes recovered per batch.
    """

    model: nn.Module
    config: RobustConfig
    encoder: str
    loss: np.ndarray
    accuracy: np.ndarray

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.model.predict(torch.as_tensor(np.asarray(x, np.float32))).numpy()


def train_robust(tokenizer: TrainedTokenizer, windows: np.ndarray, config: RobustConfig = RobustConfig(),
                 seed: int = 0, progress=None) -> TrainedRobust:
    """Train the robust encoder to recover the clean codes of decoded, attacked series.

    Each batch decodes codes (the tokenizer's codes of real windows, and a ``random_share`` of uniformly
    random code sequences), attacks the series with a random attack and strength of the training grid
    (or none), and fits the K-way head to the codes by cross-entropy.

    Parameters
    ----------
    tokenizer : TrainedTokenizer
        Gives the target codes (its encoding of ``windows``) and the decoder.
    windows : numpy.ndarray
        Real training windows.
    config : RobustConfig
        Width and budget.
    seed : int
        Seeds weights, batches and attacks.
    progress : callable or None
        ``progress(step, total, metrics)``; False stops.

    Returns
    -------
    TrainedRobust
        The model and its curves.

    Examples
    --------
    >>> x = np.random.default_rng(0).uniform(-1, 1, (32, 24, 2)).astype(np.float32)
    >>> tok = train_tokenizer(x, TokenizerConfig(steps=2, batch=8), seed=0)
    >>> train_robust(tok, x, RobustConfig(steps=2, batch=8), seed=0).predict(x[:2]).shape
    (2, 11)
    """
    seed = check_seed(seed)
    ids = tokenizer.encode(windows)
    series = tokenizer.decode(ids)
    K = tokenizer.config.codebook_size
    with torch_seeded(derive_seed(seed, "robust")):
        model = RobustEncoder(tokenizer.config.encoder, series.shape[2], series.shape[1], K, config.d_model)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    rng = derive_rng(seed, "robust-attacks")
    names = ATTACKS   # "none" included: detection must also work on unedited series
    losses, accs = [], []
    model.train()
    for step, idx in enumerate(_batches(len(series), config.batch, config.steps, seed), start=1):
        name = names[rng.integers(len(names))]
        codes = ids[idx].copy()
        n_random = int(round(config.random_share * len(idx)))
        codes[:n_random] = rng.integers(0, K, size=(n_random, codes.shape[1]))
        clean = np.concatenate([tokenizer.decode(codes[:n_random]), series[idx[n_random:]]]) if n_random else series[idx]
        xb = attack(clean, name, float(rng.choice(ROBUST_GRID)), seed=int(rng.integers(2**31)))
        target = torch.from_numpy(codes.astype(np.int64))
        logits = model(torch.from_numpy(xb))
        loss = nn.functional.cross_entropy(logits.reshape(-1, K), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        accs.append(float((logits.argmax(-1) == target).float().mean()))
        if not report(progress, step, config.steps, {"cross-entropy": losses[-1], "recovered": accs[-1]}):
            break
    model.eval()
    return TrainedRobust(model, config, tokenizer.config.encoder, np.array(losses), np.array(accs))



