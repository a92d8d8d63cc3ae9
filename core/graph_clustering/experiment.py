"""One transfer experiment: pretrain on a source, adapt to a target, against from-scratch and baselines.

:func:`transfer_run` is what the page runs live and what the benchmark repeats over seeds. The 2-D
pictures are PCA projections (NumPy SVD) of each embedding set, the prototypes projected with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.common.config import check_choice
from core.common.progress import report
from core.common.seeding import check_seed, derive_seed
from core.graph_clustering.data import DOMAINS, make_domain
from core.graph_clustering.gfm import AdaptConfig, PretrainConfig, adapt, from_scratch, pretrain
from core.graph_clustering.metrics import match_labels, score_clustering

BASELINES = ("kmeans", "spectral", "dmon", "daegc")
METHODS = ("gfm_uc", "scratch") + BASELINES
METHOD_LABELS = {"gfm_uc": "GFM-UC (pretrained + adapted)", "scratch": "same network from scratch",
                 "kmeans": "k-means on features", "spectral": "spectral clustering", "dmon": "DMoN (PyG)",
                 "daegc": "DAEGC-style"}


def project_2d(embeddings, extra=None) -> np.ndarray:
    """The first two principal components of ``embeddings`` (and ``extra`` rows in the same projection).

    Parameters
    ----------
    embeddings : array-like of shape (n, d)
        The points that define the projection.
    extra : array-like of shape (m, d), optional
        Points projected with it (the prototypes), appended after the ``n`` rows.

    Returns
    -------
    numpy.ndarray
        ``(n + m, 2)``; signs as ``sklearn.utils.extmath.svd_flip``.

    Examples
    --------
    >>> project_2d(np.eye(3), np.zeros((1, 3))).shape
    (4, 2)
    """
    from sklearn.utils.extmath import svd_flip

    Z = np.asarray(embeddings, float)
    mean = Z.mean(0)
    U, s, Vt = np.linalg.svd(Z - mean, full_matrices=False)
    U, Vt = svd_flip(U, Vt)
    pts = Z if extra is None else np.vstack([Z, np.asarray(extra, float)])
    out = (pts - mean) @ Vt[:2].T
    return out if out.shape[1] == 2 else np.hstack([out, np.zeros((len(out), 2 - out.shape[1]))])


@dataclass
class TransferRun:
    """Pretrain on ``source``, adapt to ``target``; scores of every method and the 2-D pictures.

    Attributes
    ----------
    source, target : str
        The domains' names.
    seed : int
        The run's seed (domains, initialisations).
    methods : list of str
        Names in :data:`METHODS` order that were run.
    acc, nmi, ari : numpy.ndarray
        ``(len(methods),)`` the target scores of each method.
    source_scores : numpy.ndarray
        ``(3,)`` ACC, NMI, ARI of the pretrained network on the source.
    target_truth : numpy.ndarray
        ``(n_t,)`` the target's communities (drawn, never used in training).
    gfm_labels, scratch_labels : numpy.ndarray
        ``(n_t,)`` the two networks' clusters on the target.
    gfm_matched : numpy.ndarray
        ``(n_t,)`` GFM-UC's target clusters renamed after the communities they match (for colouring).
    gfm_xy, scratch_xy : numpy.ndarray
        ``(n_t, 2)`` their target embeddings in 2-D.
    gfm_prototypes_xy, scratch_prototypes_xy : numpy.ndarray
        ``(K, 2)`` their prototypes in the same projections.
    source_xy : numpy.ndarray
        ``(n_s, 2)`` the source embeddings after pretraining.
    source_labels, source_truth : numpy.ndarray
        ``(n_s,)`` the source clusters and communities.
    source_matched : numpy.ndarray
        ``(n_s,)`` the source clusters renamed after the communities they match.
    source_prototypes_xy : numpy.ndarray
        ``(K_s, 2)`` the pretrained prototypes.
    gfm_nmi_trace, scratch_nmi_trace : numpy.ndarray
        NMI after each target step of the fine-tune and of the from-scratch run.
    completed : bool
        False when the run was stopped before its end (then some scores are NaN).
    """

    source: str
    target: str
    seed: int
    methods: list
    acc: np.ndarray
    nmi: np.ndarray
    ari: np.ndarray
    source_scores: np.ndarray
    target_truth: np.ndarray
    gfm_labels: np.ndarray
    scratch_labels: np.ndarray
    gfm_matched: np.ndarray
    gfm_xy: np.ndarray
    scratch_xy: np.ndarray
    gfm_prototypes_xy: np.ndarray
    scratch_prototypes_xy: np.ndarray
    source_xy: np.ndarray
    source_labels: np.ndarray
    source_truth: np.ndarray
    source_matched: np.ndarray
    source_prototypes_xy: np.ndarray
    gfm_nmi_trace: np.ndarray
    scratch_nmi_trace: np.ndarray
    completed: bool


def _baseline(name: str, domain, pre: PretrainConfig, steps: int, seed: int) -> np.ndarray:
    from core.graph_clustering import baselines

    if name == "kmeans":
        return baselines.kmeans_features(domain, pre.feature_dim, seed)
    if name == "spectral":
        return baselines.spectral_labels(domain, seed)
    if name == "dmon":
        return baselines.dmon_labels(domain, steps, pre.feature_dim, seed)
    return baselines.daegc_labels(domain, steps, pre.feature_dim, seed)


def transfer_run(source: str = "csbm_source", target: str = "csbm_weak_features",
                 pretrain_config: PretrainConfig | None = None, adapt_config: AdaptConfig | None = None,
                 seed: int = 0, baselines: tuple = BASELINES, progress=None) -> TransferRun:
    """Pretrain GFM-UC on ``source``, adapt it to ``target``, and run from-scratch and the baselines there.

    The from-scratch network gets the fine-tune's budget (``adapt_config.steps``); DMoN and DAEGC get
    the pretraining's (``pretrain_config.steps``), more than the fine-tune, as they train per dataset.

    Parameters
    ----------
    source, target : str
        Names in :data:`core.graph_clustering.data.DOMAINS`.
    pretrain_config : PretrainConfig, optional
        Network and pretraining; default ``PretrainConfig()``.
    adapt_config : AdaptConfig, optional
        Fine-tune; default ``AdaptConfig()``.
    seed : int
        Source and target graphs (child seeds of it) and every initialisation.
    baselines : tuple of str
        Any of :data:`BASELINES`.
    progress : callable, optional
        ``progress(step, total, metrics)``: one step per training step, one per baseline.

    Returns
    -------
    TransferRun
        Scores and pictures.

    Examples
    --------
    >>> r = transfer_run("csbm_easy", "karate", PretrainConfig(steps=3, hidden=8, embed=4), AdaptConfig(steps=2),
    ...                  baselines=("kmeans",))
    >>> r.methods, r.gfm_xy.shape, r.completed
    (['gfm_uc', 'scratch', 'kmeans'], (34, 2), True)
    """
    check_choice("source", source, tuple(DOMAINS))
    check_choice("target", target, tuple(DOMAINS))
    for b in baselines:
        check_choice("baselines", b, BASELINES)
    pre = PretrainConfig() if pretrain_config is None else pretrain_config
    ada = AdaptConfig() if adapt_config is None else adapt_config
    if not isinstance(pre, PretrainConfig):
        raise ValueError(f"pretrain_config: a {type(pre).__name__}; allowed a PretrainConfig")
    if not isinstance(ada, AdaptConfig):
        raise ValueError(f"adapt_config: a {type(ada).__name__}; allowed an AdaptConfig")
    seed = check_seed(seed)
    src = make_domain(source, derive_seed(seed, "domain", "source"))
    tgt = make_domain(target, derive_seed(seed, "domain", "target"))
    order = [m for m in METHODS if m in ("gfm_uc", "scratch") or m in baselines]
    total = pre.steps + 2 * ada.steps + len(baselines)
    stopped = []

    def phase(offset):
        def cb(step, _total, metrics):
            ok = report(progress, offset + step, total, metrics)
            if not ok:
                stopped.append(True)
            return ok
        return cb

    def halt(*_):   # after a stop, the remaining phases run one step each (for their embeddings) and end
        return False

    p = pretrain(src, pre, seed, progress=phase(0))
    g = adapt(p, tgt, ada, seed, progress=halt if stopped else phase(pre.steps))
    s = from_scratch(tgt, pre, ada.steps, seed, progress=halt if stopped else phase(pre.steps + ada.steps))
    scores = {"gfm_uc": score_clustering(tgt.labels, g.labels) if not stopped else None,
              "scratch": score_clustering(tgt.labels, s.labels) if not stopped else None}
    done = pre.steps + 2 * ada.steps
    for i, name in enumerate(m for m in order if m in BASELINES):
        if stopped:
            scores[name] = None
            continue
        scores[name] = score_clustering(tgt.labels, _baseline(name, tgt, pre, pre.steps, derive_seed(seed, name)))
        if not report(progress, done + i + 1, total, {"baseline NMI": scores[name].nmi}):
            stopped.append(True)
    get = lambda attr: np.array([getattr(scores[m], attr) if scores[m] is not None else np.nan for m in order])  # noqa: E731
    gxy, sxy, pxy = project_2d(g.embeddings, g.prototypes), project_2d(s.embeddings, s.prototypes), \
        project_2d(p.source.embeddings, p.source.prototypes)
    n_t, n_s = tgt.n_nodes, src.n_nodes
    ps = p.source.scores
    return TransferRun(source, target, seed, order, get("acc"), get("nmi"), get("ari"),
                       np.array([ps.acc, ps.nmi, ps.ari]), tgt.labels, g.labels, s.labels,
                       match_labels(tgt.labels, g.labels), gxy[:n_t], sxy[:n_t], gxy[n_t:], sxy[n_t:], pxy[:n_s],
                       p.source.labels, src.labels, match_labels(src.labels, p.source.labels), pxy[n_s:], g.nmi_trace,
                       s.nmi_trace, not stopped)
