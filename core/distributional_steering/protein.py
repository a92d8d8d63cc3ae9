"""A toy protein: a 12-bead chain with a Go-like energy, its Langevin ensemble and its foldedness.

Everything here is ours (the paper's protein experiments are not public); the observables follow
BioEmu's (``bioemu/training/foldedness.py``) scaled to our units.

Units: length 1 = one C-alpha virtual bond (3.8 A), energy 1 = one native contact (epsilon), and
temperatures in epsilon / k_B.

Native structure: a twisted beta-hairpin: strands 0-4 and 7-11 at 1.3 (4.9 A) apart, pleated
+-0.15, turn 5-6, and a twist of 0.15 rad per unit length about the strand axis so the fold is
three-dimensional. Native contacts are pairs with |i - j| > 2 and native distance < 1.7 (6.5 A);
BioEmu uses |i - j| > 3 within 10 A, which on 12 beads would count almost every pair.

Energy (Go-like, all forces bounded so overdamped Euler-Maruyama stays stable):
    bonds        (K_BOND / 2) (r_{i,i+1} - b_i)^2 with b_i the native bond lengths
    contacts     -EPS exp(-(r_ij - d_ij)^2 / (2 WELL^2)) on native contacts (a Gaussian well)
    repulsion    (K_REP / 2) max(R_REP - r_ij, 0)^2 on every non-bonded pair (|i - j| >= 2); it is a
                 core for native pairs too (their native distances are all >= 1.3 > R_REP)

Sampling: overdamped Langevin dx = -grad E dt + sqrt(2 T dt) xi, Euler-Maruyama, many independent
chains at once, each started (seeded) from the native fold or from a straight chain, a burn-in, then
snapshots every ``stride`` steps. The reference is the discretised chain's own stationary law (within
O(dt) of Boltzmann). The default temperature 0.8 sits in the folding transition: the FNC spreads
over [0, 1] (a zipping hairpin is not strongly two-state). Measured mean foldedness against
temperature (200 chains each): 0.72 at T = 0.6, 0.57 at 0.7, 0.50 at 0.75, 0.42 at 0.8, 0.33 at 0.9;
chains started folded and stretched agree after about 8000 steps, hence the burn-in of 10000.

Alignment: each conformation is centred and Kabsch-rotated (proper rotations only) onto the native,
then flattened to 36 numbers. The Langevin ensemble is invariant under rigid motions and has no
normalisable density over them; alignment picks one representative per rigid-motion orbit so the
denoiser learns a well-defined distribution in R^36. It lies in a 30-D linear subspace: the centring
gives 3 linear constraints and the optimal rotation makes X^T X_native symmetric, 3 more; the
denoiser's Gaussian preconditioning handles those 6 directions exactly.

Observables: q_ij = sigmoid(-beta (d_ij - lambda d_ij^native)), lambda = 1.2 and beta = 19 per unit
(BioEmu's 5 per angstrom times 3.8 A); FNC = mean q over native contacts; foldedness is BioEmu's
sigmoid(2 * STEEPNESS * (FNC - FOLD_THRESHOLD)) with our FOLD_THRESHOLD = 0.5, STEEPNESS = 10, so a
conformation counts as folded once half of its native contacts are formed and the mean foldedness
reads as a (soft) folded fraction.

``python -m core.distributional_steering.ship protein`` (about 4 min on 2 cores: 2.5 min of Langevin,
45 s of training) samples 30000 conformations, trains the denoiser on them and writes
``assets/distributional_steering/``: the checkpoint, 4000 of the conformations and a JSON of the
numbers; :func:`load_protein` reads them back. Measured there: reference mean foldedness 0.425
(all 30000; 0.428 for the 4000 shipped; an independent seed gave 0.441, so chains still correlate
at the 0.01 level), mean FNC 0.433. The denoiser's own samples under-fold: mean foldedness 0.350
(4000 samples, 200 reverse steps), mean FNC 0.386 (see :mod:`.denoiser` for what was tried).
Steering calibrates against an absolute target, so this bias moves the starting point, not the goal.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, logsumexp

from core.common.assets import asset_dir
from core.common.config import Config, param
from core.common.progress import report
from core.common.seeding import check_seed, make_rng

N_BEADS = 12
DIM = 3 * N_BEADS
K_BOND, EPS, WELL, K_REP, R_REP = 100.0, 1.0, 0.15, 50.0, 1.0
CONTACT_CUTOFF, MIN_SEPARATION = 1.7, 3          # native contacts: |i - j| >= 3, d < 1.7
CONTACT_BETA, CONTACT_LAMBDA = 19.0, 1.2
FOLD_THRESHOLD, STEEPNESS = 0.5, 10.0

ASSETS = asset_dir("distributional_steering")
SHIP_SEED = 0


def native_structure() -> np.ndarray:
    """The native fold [12, 3], centred: a twisted, pleated beta-hairpin (see the module docstring)."""
    x = np.zeros((N_BEADS, 3))
    sep, twist = 1.3, 0.15
    for i in range(5):
        x[i] = [0.95 * i, 0.0, 0.15 * (-1) ** i]
        x[N_BEADS - 1 - i] = [0.95 * i, sep, 0.15 * (-1) ** i]
    x[5], x[6] = [4.7, 0.2, 0.0], [4.7, sep - 0.2, 0.0]
    angle = twist * x[:, 0]
    y, z = x[:, 1] - sep / 2, x[:, 2].copy()
    x[:, 1], x[:, 2] = sep / 2 + np.cos(angle) * y - np.sin(angle) * z, np.sin(angle) * y + np.cos(angle) * z
    return x - x.mean(0)


def _topology():
    native = native_structure()
    i, j = np.triu_indices(N_BEADS, 1)
    d = np.linalg.norm(native[i] - native[j], axis=1)
    bonded = j - i == 1
    contact = (j - i >= MIN_SEPARATION) & (d < CONTACT_CUTOFF)
    incidence = np.zeros((len(i), N_BEADS))                       # d_p = x_i - x_j = incidence @ x
    incidence[np.arange(len(i)), i], incidence[np.arange(len(i)), j] = 1.0, -1.0
    return native, i, j, d, bonded, contact, incidence


NATIVE, _I, _J, _D_NATIVE, _BONDED, _CONTACT, _INCIDENCE = _topology()


def native_contacts() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, native distance) of the native contacts."""
    return _I[_CONTACT], _J[_CONTACT], _D_NATIVE[_CONTACT]


def _as_beads(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim == 1 or x.shape == (N_BEADS, 3):                  # one conformation
        x = x[None]
    if x.ndim == 2 and x.shape[1] == DIM:
        x = x.reshape(-1, N_BEADS, 3)
    if x.ndim != 3 or x.shape[1:] != (N_BEADS, 3):
        raise ValueError(f"x: shape {np.shape(x)}; allowed [n, {DIM}], [n, {N_BEADS}, 3] or one conformation")
    return x


def _pair_terms(beads_first: np.ndarray):
    """Pair vectors [P, 3, m], distances [P, m] and dE/dr [P, m] for beads-first positions [12, 3, m]."""
    m = beads_first.shape[2]
    d = (_INCIDENCE @ beads_first.reshape(N_BEADS, -1)).reshape(len(_I), 3, m)
    r = np.sqrt((d * d).sum(1))
    u = r - _D_NATIVE[:, None]
    well = np.exp(-u * u / (2 * WELL**2))
    core = np.maximum(R_REP - r, 0.0) * ~_BONDED[:, None]
    energy = (0.5 * K_BOND * u * u * _BONDED[:, None] - EPS * well * _CONTACT[:, None] + 0.5 * K_REP * core**2)
    d_energy = (K_BOND * u * _BONDED[:, None] + (EPS / WELL**2) * u * well * _CONTACT[:, None] - K_REP * core)
    return d, r, energy, d_energy


def energy(x) -> np.ndarray:
    """Go-like energy of conformations x [n, 36] or [n, 12, 3] -> [n]."""
    beads = _as_beads(x).transpose(1, 2, 0)
    return _pair_terms(beads)[2].sum(0)


def _grad_beads_first(beads: np.ndarray) -> np.ndarray:
    d, r, _, d_energy = _pair_terms(beads)
    g = (d_energy / np.maximum(r, 1e-12))[:, None, :] * d
    return (_INCIDENCE.T @ g.reshape(len(_I), -1)).reshape(beads.shape)


def energy_grad(x) -> np.ndarray:
    """Gradient of :func:`energy`, same shape as x ([n, 36] or [n, 12, 3])."""
    shape = np.shape(x)
    beads = _as_beads(x).transpose(1, 2, 0)
    return _grad_beads_first(beads).transpose(2, 0, 1).reshape(shape)


def kabsch_align(x) -> np.ndarray:
    """Centre each conformation and rotate it (det +1) onto the native; x [n, 36] or [n, 12, 3] -> [n, 36]."""
    beads = _as_beads(x)
    centred = beads - beads.mean(1, keepdims=True)
    h = np.einsum("nbi,bj->nij", centred, NATIVE)                # sum_b x_b n_b^T
    u, _, vt = np.linalg.svd(h)
    flip = np.sign(np.linalg.det(u @ vt))
    u[:, :, 2] *= flip[:, None]                                  # the reflection fix of Kabsch
    return (centred @ u @ vt).reshape(-1, DIM)


def contact_scores(x) -> np.ndarray:
    """Soft native-contact scores q_ij [n, n_contacts]."""
    beads = _as_beads(x)
    i, j, d_native = native_contacts()
    d = np.linalg.norm(beads[:, i] - beads[:, j], axis=-1)
    return expit(-CONTACT_BETA * (d - CONTACT_LAMBDA * d_native))


def fnc(x) -> np.ndarray:
    """Fraction of native contacts [n]: the mean soft contact score."""
    return contact_scores(x).mean(1)


def foldedness(x) -> np.ndarray:
    """BioEmu-style soft folded indicator of each conformation.

    .. math::

        q_ij = sigmoid(-beta (d_ij - lambda d_ij^native)),   FNC = mean_{native contacts} q_ij,
        foldedness = sigmoid(2 STEEPNESS (FNC - FOLD_THRESHOLD))

    with beta = 19, lambda = 1.2, STEEPNESS = 10, FOLD_THRESHOLD = 0.5 (our units: one virtual bond).

    Parameters
    ----------
    x : array_like
        Conformations [n, 36] (flattened 12 x 3 beads) or [n, 12, 3], or one conformation.

    Returns
    -------
    numpy.ndarray
        [n] in (0, 1); close to 1 for the native fold.

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``);
    the observable follows BioEmu's ``bioemu/training/foldedness.py``.

    Examples
    --------
    >>> from core.distributional_steering import foldedness
    >>> from core.distributional_steering.protein import native_structure
    >>> native = native_structure()
    >>> foldedness(native).round(3), foldedness(3 * native).round(3)
    (array([1.]), array([0.]))
    """
    """BioEmu's foldedness sigmoid(2 STEEPNESS (FNC - FOLD_THRESHOLD)) in [0, 1], [n]."""
    return expit(2 * STEEPNESS * (fnc(x) - FOLD_THRESHOLD))


def maxent_tilt(values, target: float) -> float:
    """The a with sum_i w_i f_i = target for w ∝ exp(a f): a monotone 1-D root (brentq)."""
    f = np.asarray(values, dtype=float).ravel()
    if f.size == 0 or not np.isfinite(f).all():
        raise ValueError("values: empty or not finite; allowed a finite 1-D array")
    lo, hi = float(f.min()), float(f.max())
    if not (isinstance(target, (int, float, np.floating, np.integer)) and lo < float(target) < hi):
        raise ValueError(f"target: {target!r} is not reachable by reweighting; allowed the open interval "
                         f"({lo:g}, {hi:g}) between the smallest and largest value")
    centred = f - f.mean()
    scale = 1.0 / max(float(centred.std()), 1e-12)

    def excess(a):                                               # increasing in a (slope = weighted variance)
        logw = a * centred
        return float(np.exp(logw - logsumexp(logw)) @ f) - target

    left, right = -scale, scale
    while excess(left) > 0:
        left *= 2
    while excess(right) < 0:
        right *= 2
    return brentq(excess, left, right, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)


def maxent_reweight(values, target: float) -> np.ndarray:
    """Maximum-entropy weights w ∝ exp(a f) (summing to 1) with sum_i w_i f_i = target.

    .. math::

        w = argmax_w H(w)  s.t.  sum_i w_i f_i = target   =>   w_i ∝ exp(a f_i)

    with the scalar a found by a bracketed root (brentq): the exact tilt of the reference the
    steered samples are compared with.

    Parameters
    ----------
    values : array_like
        f_i, finite, one per reference sample (e.g. their foldedness).
    target : float
        Strictly between min f and max f.

    Returns
    -------
    numpy.ndarray
        [n] weights summing to 1.

    Raises
    ------
    ValueError
        For empty or non-finite values, or a target outside (min f, max f).

    References
    ----------
    A mean-field framework for inference-time distributional control of diffusion models (NeurIPS 2026, ``docs/PAPERS.md``);
    the observable follows BioEmu's ``bioemu/training/foldedness.py``.

    Examples
    --------
    >>> import numpy as np
    >>> from core.distributional_steering import maxent_reweight
    >>> f = np.array([0.0, 0.5, 1.0])
    >>> w = maxent_reweight(f, 0.7)
    >>> round(float(w @ f), 6), bool(np.all(np.diff(w) > 0))
    (0.7, True)
    """
    f = np.asarray(values, dtype=float).ravel()
    logw = maxent_tilt(f, target) * (f - f.mean())
    return np.exp(logw - logsumexp(logw))


@dataclass(frozen=True)
class LangevinConfig(Config):
    temperature: float = param(0.8, low=0.0, high=5.0, low_open=True, doc="k_B T in units of one native contact")
    dt: float = param(0.004, low=0.0, high=0.01, low_open=True,
                      doc="Euler-Maruyama step; dt * K_BOND must stay well below 2 for stability")
    n_chains: int = param(1000, low=1, high=100_000, integer=True, doc="independent chains run together")
    burn_in: int = param(10_000, low=0, high=10_000_000, integer=True, doc="steps before the first snapshot")
    stride: int = param(250, low=1, high=1_000_000, integer=True, doc="steps between snapshots of a chain")


def reference_sample(n: int, seed: int, config: LangevinConfig | None = None, progress=None) -> np.ndarray:
    """n aligned conformations [n, 36] from overdamped Langevin: n_chains chains, burn_in, then one
    snapshot of every chain each ``stride`` steps until n are collected (the first n rows of that order).

    ``progress(step, total, {"fnc": mean FNC})`` is called every 100 steps; on False the snapshots so
    far are returned (possibly fewer than n).
    """
    config = config or LangevinConfig()
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n: {n!r}; allowed integers >= 1")
    rng = make_rng(check_seed(seed))
    m = config.n_chains
    snapshots = math.ceil(n / m)
    total = config.burn_in + (snapshots - 1) * config.stride + 1
    stretched = np.zeros((N_BEADS, 3))
    stretched[:, 0] = np.arange(N_BEADS) * float(np.mean(_D_NATIVE[_BONDED]))
    start_native = rng.random(m) < 0.5
    beads = np.where(start_native[None, None, :], NATIVE[:, :, None], stretched[:, :, None])   # [12, 3, m]
    noise = math.sqrt(2 * config.temperature * config.dt)
    taken = []
    for step in range(1, total + 1):
        beads = beads - config.dt * _grad_beads_first(beads) + noise * rng.standard_normal(beads.shape)
        if step >= config.burn_in + 1 and (step - config.burn_in - 1) % config.stride == 0:
            taken.append(kabsch_align(beads.transpose(2, 0, 1)))
        if step % 100 == 0 or step == total:
            if not report(progress, step, total, {"fnc": float(fnc(beads.transpose(2, 0, 1)).mean())}):
                break
    if not taken:
        return np.zeros((0, DIM))
    return np.concatenate(taken)[:n]


N_TRAIN, N_SHIPPED, TRAIN_STEPS = 30_000, 4000, 4000
TRAIN_HYPER = {"batch_size": 1024, "lr": 3e-3, "n_fourier": 0}
DENOISER_DIR, REFERENCE_FILE, METADATA_FILE = "protein_denoiser", "protein_reference.npy", "protein_reference.json"
COMMAND = "python -m core.distributional_steering.ship protein"


def ship(directory: str | Path = ASSETS, sample_progress=None, train_progress=None) -> dict:
    """Sample the reference, train the protein denoiser on it, write both and return the metadata.

    The shipped reference is a seeded subset of N_SHIPPED of the N_TRAIN training conformations.
    """
    from core.distributional_steering.baselines import unguided
    from core.distributional_steering.denoiser import save_denoiser, train_denoiser

    directory = Path(directory)
    config = LangevinConfig()
    started = time.perf_counter()
    train = reference_sample(N_TRAIN, SHIP_SEED, config, progress=sample_progress)
    sampling_seconds = time.perf_counter() - started
    base = train_denoiser(train, TRAIN_STEPS, SHIP_SEED, progress=train_progress, **TRAIN_HYPER)
    shipped = train[make_rng(SHIP_SEED).choice(len(train), N_SHIPPED, replace=False)]
    generated = unguided(base, N_SHIPPED, seed=SHIP_SEED + 1, n_steps=200).positions
    meta = {
        "seed": SHIP_SEED, "made_by": COMMAND, "langevin": config.to_dict(),
        "n_train": len(train), "n_shipped": N_SHIPPED, "sampling_seconds": round(sampling_seconds, 1),
        "train_mean_fnc": float(fnc(train).mean()), "train_mean_foldedness": float(foldedness(train).mean()),
        "shipped_mean_foldedness": float(foldedness(shipped).mean()),
        "denoiser_sample_mean_foldedness": float(foldedness(generated).mean()),
        "denoiser_sample_mean_fnc": float(fnc(generated).mean()),
        "denoiser_sample": {"n": N_SHIPPED, "seed": SHIP_SEED + 1, "n_steps": 200},
    }
    directory.mkdir(parents=True, exist_ok=True)
    trained_on = (f"reference_sample({N_TRAIN}, seed={SHIP_SEED}) at the default LangevinConfig; "
                  f"{REFERENCE_FILE} holds {N_SHIPPED} of those conformations")
    save_denoiser(base, directory / DENOISER_DIR, {"made_by": COMMAND, "trained_on": trained_on})
    np.save(directory / REFERENCE_FILE, shipped.astype(np.float32), allow_pickle=False)
    (directory / METADATA_FILE).write_text(json.dumps({**meta, "denoiser": base.metadata}, indent=2))
    return meta


@dataclass
class Protein:
    """The shipped toy protein: its learned denoiser and its Langevin reference.

    Attributes
    ----------
    base : LearnedBase
        The noise-prediction denoiser trained on the Langevin conformations (a base for :func:`.steer.steer`).
    reference : numpy.ndarray
        [N_SHIPPED, 36] float64 aligned reference conformations (the max-ent ground truth's support).
    """

    base: object
    reference: np.ndarray


def load_protein(directory: str | Path = ASSETS) -> Protein:
    """Load the shipped protein denoiser and its reference conformations.

    Parameters
    ----------
    directory : str or Path
        The folder ``python -m core.distributional_steering.ship protein`` wrote; default
        ``assets/distributional_steering/``.

    Returns
    -------
    Protein
        The :class:`~core.distributional_steering.denoiser.LearnedBase` (36-D) and the reference [4000, 36].

    Examples
    --------
    >>> from core.distributional_steering import foldedness, load_protein
    >>> protein = load_protein()
    >>> protein.base.dim, protein.reference.shape, round(float(foldedness(protein.reference).mean()), 3)
    (36, (4000, 36), 0.428)
    """
    from core.distributional_steering.denoiser import load_denoiser

    directory = Path(directory)
    if not (directory / REFERENCE_FILE).is_file():
        raise ValueError(f"directory: {str(directory)!r} holds no {REFERENCE_FILE}; allowed the folder written by "
                         f"{COMMAND}")
    reference = np.load(directory / REFERENCE_FILE, allow_pickle=False).astype(float)
    return Protein(load_denoiser(directory / DENOISER_DIR), reference)

