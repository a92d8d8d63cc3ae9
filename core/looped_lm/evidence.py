"""What separates a learned cycle from the architecture's: the readings the claim tests and the bench share.

Measured on main (issue 21): 9 of 10 *untrained* default models reach distinct per-layer fixed points
with settled attention (an injected, normalised block contracts by construction), so those readings
alone test the design, not training. Our split, used by ``tests/core/looped_lm/test_claims.py`` and
``bench/looped_lm.py``:

- :func:`converges` (architectural): every block layer's delta at loop 32 <= 1e-2 and <= delta at loop
  4 / 10, the layers' fixed points more than 0.05 apart (for B > 1), attention change at loop 32 < 0.01;
- :func:`carries_the_answer` (learned): the coda reads the right answer off the cycle's fixed point
  (the last block layer's state at the last loop) for >= 95 % of the probe batch;
- :func:`selective` (learned): the settled attention's mean row entropy is at most 0.8 of uniform
  causal attention's (row i spread over its i + 1 keys), so heads settle onto a pattern, not a blur;
- :func:`stages_repeat` (stages, pointer chasing): see its docstring.

The controls are :func:`untrained_like` (the same design and size at a seeded initialisation) and the
shipped "shuffled" model (the stable design trained on shuffled targets); on pointer chasing, the shipped
"pointer_shuffled" (the pointer block trained on shuffled targets) and an untrained block.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.common.config import check_range
from core.common.seeding import derive_seed, torch_seeded
from core.looped_lm.cache import run_with_cache
from core.looped_lm.metrics import (attention_change, attention_entropy, fixed_point_residuals,
                                    fixed_point_separation, spectral_radius)

SETTLED, SHRINK, SEPARATED, ATTENTION_SETTLED = 1e-2, 10.0, 0.05, 1e-2
ANSWERED, SHARPER = 0.95, 0.8


@dataclass
class CycleEvidence:
    """Readings of one model after ``loops`` loops on a probe batch of its task (:func:`cycle_evidence`).

    Attributes
    ----------
    delta_loop4 : numpy.ndarray
        [B] median relative change of each block layer's state from loop 4 to loop 5.
    delta_loop32 : numpy.ndarray
        [B] the same from loop 32 to loop 33.
    separation : float
        Min distance between the layers' last states over their mean norm (NaN for B = 1).
    attention_change_loop32 : float
        Mean total variation of the heads' attention from loop 32 to loop 33.
    attention_sharpness : float
        Settled attention's mean row entropy over uniform causal attention's (1 = a blur).
    answer_at_fixed_point : numpy.ndarray
        [B] accuracy of the coda read off each block layer's state at the last loop.
    spectral_radius : float
        Of the cycle map's Jacobian at the last state (NaN unless asked for).

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import CycleEvidence, converges, carries_the_answer, selective
    >>> ev = CycleEvidence(delta_loop4=np.array([0.1, 0.2]), delta_loop32=np.array([1e-4, 2e-4]), separation=0.3,
    ...                    attention_change_loop32=1e-4, attention_sharpness=0.5,
    ...                    answer_at_fixed_point=np.array([0.2, 1.0]), spectral_radius=float("nan"))
    >>> converges(ev), carries_the_answer(ev), selective(ev)
    (True, True, True)
    """

    delta_loop4: np.ndarray        # [B] median relative change of each layer's state, loop 4 -> 5
    delta_loop32: np.ndarray       # [B] loop 32 -> 33
    separation: float              # min distance between the layers' last states / their mean norm (nan for B = 1)
    attention_change_loop32: float  # mean total variation of the heads' attention, loop 32 -> 33
    attention_sharpness: float     # settled attention's mean row entropy / uniform causal attention's
    answer_at_fixed_point: np.ndarray   # [B] accuracy of the coda read off each layer's last state
    spectral_radius: float         # of the cycle map's Jacobian at the last state (nan unless asked for)


def cycle_evidence(model, task, loops: int = 40, n: int = 64, seed: int = 123, radius: bool = False) -> CycleEvidence:
    """:class:`CycleEvidence` of ``model`` on ``n`` samples of ``task`` (seed ``seed``).

    Parameters
    ----------
    model : LoopedLM
        The looped model read (its mode is left as it was).
    task : Task
        Its true targets (for a control trained on shuffled ones, the unshuffled task).
    loops : int
        At least 34 (delta at loop 32 compares loops 32 and 33).
    n : int
        Probe samples, 1..100000.
    seed : int
        Seeds the probe batch.
    radius : bool
        Also the spectral radius of the full-cycle map s -> step(s, e) at the last state, on the first
        two samples (:func:`~core.looped_lm.metrics.spectral_radius`, Arnoldi on jvp products).

    Returns
    -------
    CycleEvidence
        The readings; :func:`converges`, :func:`carries_the_answer` and :func:`selective` judge them.

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``): "each layer in the cycle
    converges to a distinct fixed point ... attention-head behavior stabilizes".

    Examples
    --------
    >>> from core.looped_lm import LoopedConfig, cycle_evidence, task_of
    >>> from core.looped_lm.training import build
    >>> task = task_of(LoopedConfig())
    >>> ev = cycle_evidence(build(LoopedConfig(d_model=16, heads=2), task), task, loops=34, n=4)
    >>> ev.delta_loop32.shape, ev.answer_at_fixed_point.shape
    ((2,), (2,))
    """
    check_range("n", n, low=1, high=100_000, integer=True)
    if isinstance(loops, bool) or not isinstance(loops, (int, np.integer)) or loops < 34:
        raise ValueError(f"loops: {loops} is too few; allowed >= 34 (delta at loop 32 needs loop 33)")
    ids, targets = task.sample(n, seed)
    cache = run_with_cache(model, ids, loops)
    delta = fixed_point_residuals(cache.hiddens, reduce="median")
    uniform = np.log(np.arange(1, ids.shape[1] + 1)).mean()
    with torch.no_grad():
        read = [float((model.decode(cache.hiddens[-1, layer])[:, -1].argmax(-1) == targets[:, -1]).float().mean())
                for layer in range(cache.block_size)]
    rho = float("nan")
    if radius:
        e, s = cache.prelude[:2], cache.states[-1][:2]
        rho = spectral_radius(lambda x: model.step(x, e), s)
    return CycleEvidence(delta[3], delta[31], fixed_point_separation(cache.hiddens),
                         float(attention_change(cache.attentions)[31].mean()),
                         float(attention_entropy(cache.attentions)[-1].mean() / uniform), np.array(read), rho)


def converges(ev: CycleEvidence) -> bool:
    """The architectural part: every layer settles, at a point of its own, with attention settled.

    Every block layer's delta at loop 32 is at most 1e-2 and at most a tenth of its delta at loop 4,
    the layers' fixed points are more than 0.05 apart (for B > 1), and the attention change at loop 32
    is below 1e-2.

    Parameters
    ----------
    ev : CycleEvidence
        The readings of one model.

    Returns
    -------
    bool
        All of the above hold.

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import CycleEvidence, converges, carries_the_answer, selective
    >>> ev = CycleEvidence(delta_loop4=np.array([0.1, 0.2]), delta_loop32=np.array([1e-4, 2e-4]), separation=0.3,
    ...                    attention_change_loop32=1e-4, attention_sharpness=0.5,
    ...                    answer_at_fixed_point=np.array([0.2, 1.0]), spectral_radius=float("nan"))
    >>> converges(ev)
    True
    """
    apart = np.isnan(ev.separation) or ev.separation > SEPARATED     # one layer: one point, nothing to separate
    return bool((ev.delta_loop32 <= SETTLED).all() and (ev.delta_loop32 <= ev.delta_loop4 / SHRINK).all()
                and apart and ev.attention_change_loop32 < ATTENTION_SETTLED)


def carries_the_answer(ev: CycleEvidence) -> bool:
    """The learned part: the coda reads the answer off the cycle's fixed point (last block layer).

    Parameters
    ----------
    ev : CycleEvidence
        The readings of one model.

    Returns
    -------
    bool
        The last block layer's ``answer_at_fixed_point`` is at least 0.95.

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import CycleEvidence, converges, carries_the_answer, selective
    >>> ev = CycleEvidence(delta_loop4=np.array([0.1, 0.2]), delta_loop32=np.array([1e-4, 2e-4]), separation=0.3,
    ...                    attention_change_loop32=1e-4, attention_sharpness=0.5,
    ...                    answer_at_fixed_point=np.array([0.2, 1.0]), spectral_radius=float("nan"))
    >>> carries_the_answer(ev)
    True
    """
    return bool(ev.answer_at_fixed_point[-1] >= ANSWERED)


def selective(ev: CycleEvidence) -> bool:
    """Settled attention at least 20 % sharper (lower row entropy) than uniform causal attention.

    Parameters
    ----------
    ev : CycleEvidence
        The readings of one model.

    Returns
    -------
    bool
        ``attention_sharpness`` <= 0.8.

    Examples
    --------
    >>> import numpy as np
    >>> from core.looped_lm import CycleEvidence, converges, carries_the_answer, selective
    >>> ev = CycleEvidence(delta_loop4=np.array([0.1, 0.2]), delta_loop32=np.array([1e-4, 2e-4]), separation=0.3,
    ...                    attention_change_loop32=1e-4, attention_sharpness=0.5,
    ...                    answer_at_fixed_point=np.array([0.2, 1.0]), spectral_radius=float("nan"))
    >>> selective(ev)
    True
    """
    return bool(ev.attention_sharpness <= SHARPER)


def untrained_like(model, seed: int = 0) -> torch.nn.Module:
    """A model of ``model``'s design and size (a shipped model's ``config``) at a seeded initialisation.

    Parameters
    ----------
    model : torch.nn.Module
        A model with a ``config`` attribute (a :func:`~core.looped_lm.pretrained.load_pretrained` model).
    seed : int
        The initialisation's seed (a child seed is derived from it).

    Returns
    -------
    torch.nn.Module
        A fresh model of the same config, in eval mode: the claim tests' untrained control.

    Examples
    --------
    >>> from core.looped_lm import load_pretrained, untrained_like
    >>> stable = load_pretrained("stable").model
    >>> control = untrained_like(stable)
    >>> control.block_size == stable.block_size, control.training
    (True, False)
    """
    if not hasattr(model, "config"):
        raise ValueError("model: has no config; allowed a model from load_pretrained (with a LoopedConfig attached)")
    from core.looped_lm.training import build, task_of

    config = model.config
    with torch_seeded(derive_seed(seed, "untrained control")):
        return build(config, task_of(config.replace(shuffled=False))).eval()


def stages_repeat(stages) -> bool:
    """Stages repeat per loop on pointer chasing (a :class:`~core.looped_lm.view.HopStages`).

    True when one loop leaves hops unread; every loop until all hops are read adds at least one more
    (the same stage, run again on what the last loop resolved); all hops stay read afterwards; the
    feedforward model of matching depth reads all hops by its last layer, adding them layer by layer;
    and the feedforward layer each loop resembles most (CKA) moves deeper, loop after loop. It does not
    ask for one hop per loop: how many each loop adds is reported (:func:`hops_added`), not assumed.

    Parameters
    ----------
    stages : HopStages
        The readings of a looped model against a feedforward one (:func:`~core.looped_lm.stages.hop_stages`).

    Returns
    -------
    bool
        Whether the stages repeat loop after loop as described.

    References
    ----------
    Mechanistic analysis of looped reasoning language models (NeurIPS 2026, ``docs/PAPERS.md``): "recurrent blocks learn
    stages of inference that closely mirror those of feedforward models, repeating these stages".

    Examples
    --------
    >>> from core.looped_lm import stages_repeat
    >>> from core.looped_lm.view import load_hop_stages
    >>> stages_repeat(load_hop_stages("pointer")), stages_repeat(load_hop_stages("untrained"))
    (True, False)
    """
    done, ff = stages.hops_done, stages.feedforward_hops_done
    K = stages.coda_accuracy.shape[1]
    if not (done == K).any() or done[0] >= K:
        return False
    first = int(np.argmax(done == K))
    match = stages.cka[:, :first + 1].argmax(0)
    return bool((np.diff(done[:first + 1]) >= 1).all() and (done[first:] == K).all()
                and ff[-1] == K and (np.diff(ff) >= 0).all() and (np.diff(match) >= 0).all() and match[-1] > match[0])


def hops_added(stages) -> np.ndarray:
    """Hops each loop adds until all are read: ones for one hop per loop, doubling counts for pointer doubling."""
    done = stages.hops_done
    K = stages.coda_accuracy.shape[1]
    last = int(np.argmax(done == K)) + 1 if (done == K).any() else len(done)
    return np.diff(np.concatenate([[0], done[:last]]))
