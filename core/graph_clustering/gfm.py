"""GFM-UC: pretrain unified prototypes and a clustering network on a source graph, adapt to a target.

Pretraining (:func:`pretrain`), on the source's SVD-aligned features, minimises

    L = w_mod · (spectral + w_col · collapse)(A, Q) + w_dec · KL(P ‖ Q)|_confident + w_orth · ‖P̂P̂ᵀ − I‖²/K²

where ``Z`` are the embeddings of every node's k-hop ego-subgraph (a k-layer GCN, mean over the
ego-subgraph), ``Q`` DEC's Student-t assignment of ``Z`` to K learnable prototypes (initialised by
k-means on the untrained embeddings), ``P`` its sharpened target, and "confident" the top
``confident_fraction`` of each cluster by ``max_u q_iu`` (the high-confidence subgraph selection).

Fine-tuning (:func:`adapt`) starts from the source network and prototypes and minimises, on the
target, with no labels,

    L = w_mod · (spectral + w_col · collapse) + w_dec · KL(P ‖ Q)|_confident + w_align · D(Z_t, Z_s) + w_ent · (H(q_i) − H(q̄))

with ``D`` the RBF MMD² or CORAL between target embeddings and a sample of the source's, and
the last term sharp and balanced assignments. :func:`from_scratch` is the same network trained with
the pretraining loss on the target alone, for the same number of steps as the fine-tune: the
comparison the paper's transfer claim is about.

Ours (the paper's text was not available): every weight, the Student-t with one degree of freedom,
DMoN's losses as the structural term, the confident set by per-cluster rank, prototypes reused from
the source when K agrees (k-means on the target's embeddings otherwise, or when asked), Adam.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.config import Config, choice, param
from core.common.progress import report
from core.common.seeding import check_seed, derive_seed, torch_seeded
from core.graph_clustering.data import NodeDomain, svd_align
from core.graph_clustering.metrics import ClusterScores, score_clustering


@dataclass(frozen=True)
class PretrainConfig(Config):
    """The network and the pretraining loss (also the from-scratch training on a target).

    Examples
    --------
    >>> PretrainConfig(steps=50).hops
    2
    """

    feature_dim: int = param(24, low=2, high=128, integer=True, doc="common feature dimension after the SVD alignment")
    hidden: int = param(64, low=4, high=512, integer=True, doc="GCN hidden width")
    embed: int = param(16, low=2, high=256, integer=True, doc="embedding (prototype) dimension")
    hops: int = param(2, low=1, high=4, integer=True, doc="k: GCN layers and the ego-subgraph radius")
    steps: int = param(150, low=1, high=2000, integer=True, doc="Adam steps on the source")
    lr: float = param(0.01, low=0.0, high=1.0, low_open=True, doc="Adam learning rate")
    confident_fraction: float = param(0.5, low=0.0, high=1.0, low_open=True,
                                      doc="share of each cluster kept as high-confidence subgraphs")
    modularity_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of DMoN's spectral + collapse loss")
    collapse_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of the collapse loss inside it")
    dec_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of KL(P‖Q) on the confident subgraphs")
    ortho_weight: float = param(0.1, low=0.0, high=100.0, doc="weight of the prototype orthogonality loss")


@dataclass(frozen=True)
class AdaptConfig(Config):
    """The label-free fine-tune on a target domain.

    Examples
    --------
    >>> AdaptConfig(alignment="coral").steps
    60
    """

    steps: int = param(60, low=1, high=2000, integer=True, doc="Adam steps on the target (also the from-scratch budget)")
    lr: float = param(0.005, low=0.0, high=1.0, low_open=True, doc="Adam learning rate")
    alignment: str = choice("mmd", ("mmd", "coral", "none"), doc="distribution alignment with the source embeddings")
    align_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of the alignment term")
    entropy_weight: float = param(0.3, low=0.0, high=100.0, doc="weight of the sharp-and-balanced entropy term")
    modularity_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of DMoN's losses on the target")
    collapse_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of the collapse loss inside it")
    dec_weight: float = param(1.0, low=0.0, high=100.0, doc="weight of KL(P‖Q) on the target's confident subgraphs")
    confident_fraction: float = param(0.5, low=0.0, high=1.0, low_open=True,
                                      doc="share of each target cluster kept as high-confidence")
    prototypes: str = choice("source", ("source", "kmeans"),
                             doc="start from the source prototypes (when K agrees) or k-means on target embeddings")
    source_sample: int = param(200, low=10, high=5000, integer=True, doc="source embeddings kept for the alignment")


@dataclass
class Clustering:
    """One clustering of one domain by the network, with its training history.

    Attributes
    ----------
    method : str
        ``"pretrain"`` (the source), ``"gfm_uc"`` (adapted) or ``"scratch"``.
    domain : str
        The domain's name.
    labels : numpy.ndarray
        ``(n,)`` argmax of the assignment.
    embeddings : numpy.ndarray
        ``(n, embed)`` ego-subgraph embeddings after training.
    prototypes : numpy.ndarray
        ``(K, embed)`` the prototypes after training.
    confidence : numpy.ndarray
        ``(n,)`` ``max_u q_iu``.
    scores : ClusterScores
        ACC, NMI and ARI against the domain's truth (computed after training; never used in it).
    loss : numpy.ndarray
        ``(steps_done,)`` the training loss.
    nmi_trace : numpy.ndarray
        ``(steps_done,)`` NMI of the argmax after each step (monitoring only).
    steps_done : int
        Steps run (fewer than planned if stopped).
    """

    method: str
    domain: str
    labels: np.ndarray
    embeddings: np.ndarray
    prototypes: np.ndarray
    confidence: np.ndarray
    scores: ClusterScores
    loss: np.ndarray
    nmi_trace: np.ndarray
    steps_done: int


@dataclass
class Pretrained:
    """A pretrained GFM-UC: the network's weights, its prototypes and a sample of source embeddings.

    Attributes
    ----------
    config : PretrainConfig
        How it was built and trained.
    state : dict
        Parameter name -> numpy array (the network's ``state_dict``).
    source_sample : numpy.ndarray
        ``(m, embed)`` source ego-subgraph embeddings kept for the target alignment.
    source : Clustering
        The source clustering at the end of pretraining.
    """

    config: PretrainConfig
    state: dict
    source_sample: np.ndarray
    source: Clustering
    _stopped: bool = field(default=False, repr=False)


class _Graph:
    """A domain's tensors: aligned features, edges, the ego readout and the dense adjacency."""

    def __init__(self, domain: NodeDomain, feature_dim: int, hops: int):
        import torch

        from core.graph_clustering.network import edge_index, ego_readout_matrix

        self.x = torch.as_tensor(svd_align(domain.features, feature_dim))
        self.edges = edge_index(domain.adjacency)
        self.readout = ego_readout_matrix(domain.adjacency, hops)
        self.adj = torch.as_tensor(domain.adjacency, dtype=torch.float32)


def _check_domain(domain) -> NodeDomain:
    if not isinstance(domain, NodeDomain):
        raise ValueError(f"domain: a {type(domain).__name__}; allowed a NodeDomain (see make_domain)")
    if domain.adjacency.sum() <= 0:
        raise ValueError(f"domain: {domain.name} has no edges; allowed a graph with at least one edge")
    return domain


def _kmeans_prototypes(z: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import KMeans

    return KMeans(k, n_init=5, random_state=derive_seed(seed, "prototypes", "kmeans")).fit(z).cluster_centers_


def _train(net, graph: _Graph, loss_fn, steps: int, lr: float, truth: np.ndarray, progress, offset: int,
           total: int, phase: str):
    import torch

    from core.graph_clustering.metrics import nmi
    from core.graph_clustering.network import soft_assign

    opt = torch.optim.Adam(net.parameters(), lr=lr)
    losses, traces, stopped = [], [], False
    for step in range(steps):
        opt.zero_grad()
        z = net(graph.x, graph.edges, graph.readout)
        q = soft_assign(z, net.prototypes)
        loss = loss_fn(z, q)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        traces.append(nmi(truth, q.detach().argmax(1).numpy()))
        if not report(progress, offset + step + 1, total, {f"{phase} loss": losses[-1], f"{phase} NMI": traces[-1]}):
            stopped = True
            break
    return np.array(losses), np.array(traces), stopped


def _result(method: str, domain: NodeDomain, net, graph: _Graph, losses, traces) -> Clustering:
    import torch

    from core.graph_clustering.network import soft_assign

    with torch.no_grad():
        z = net(graph.x, graph.edges, graph.readout)
        q = soft_assign(z, net.prototypes)
    labels = q.argmax(1).numpy()
    return Clustering(method, domain.name, labels, z.numpy().copy(), net.prototypes.detach().numpy().copy(),
                      q.max(1).values.numpy().copy(), score_clustering(domain.labels, labels), losses, traces,
                      int(len(losses)))


def _pretrain_loss(config, graph: _Graph, net):
    from core.graph_clustering.network import confident_kl, dmon_losses, prototype_orthogonality

    def loss(z, q):
        spectral, collapse = dmon_losses(graph.adj, q)
        return (config.modularity_weight * (spectral + config.collapse_weight * collapse)
                + config.dec_weight * confident_kl(q, config.confident_fraction)
                + config.ortho_weight * prototype_orthogonality(net.prototypes))
    return loss


def _fresh_net(config: PretrainConfig, graph: _Graph, k: int, seed: int, purpose: str):
    import torch

    from core.graph_clustering.network import ClusterNet

    with torch_seeded(derive_seed(seed, purpose, "init")):
        net = ClusterNet(config.feature_dim, config.hidden, config.embed, k, config.hops)
    with torch.no_grad():
        z = net(graph.x, graph.edges, graph.readout).numpy()
        net.prototypes.copy_(torch.as_tensor(_kmeans_prototypes(z, k, derive_seed(seed, purpose)), dtype=torch.float32))
    return net


def _fit(domain, config, seed, progress, purpose, method, offset=0, total=None):
    graph = _Graph(domain, config.feature_dim, config.hops)
    net = _fresh_net(config, graph, domain.n_clusters, seed, purpose)
    losses, traces, stopped = _train(net, graph, _pretrain_loss(config, graph, net), config.steps, config.lr,
                                     domain.labels, progress, offset, total or config.steps, method)
    return net, graph, _result(method, domain, net, graph, losses, traces), stopped


def pretrain(source: NodeDomain, config: PretrainConfig | None = None, seed: int = 0, progress=None) -> Pretrained:
    """Pretrain the clustering network and its unified prototypes on a source domain, without labels.

    Parameters
    ----------
    source : NodeDomain
        The source graph (its labels are only used to score the result).
    config : PretrainConfig, optional
        Default ``PretrainConfig()``.
    seed : int
        Network initialisation and the k-means start of the prototypes.
    progress : callable, optional
        ``progress(step, total, metrics)``; returning False stops after that step.

    Returns
    -------
    Pretrained
        Weights, prototypes, a source-embedding sample and the source clustering.

    Examples
    --------
    >>> from core.graph_clustering.data import make_csbm
    >>> p = pretrain(make_csbm(n=80, k=2, seed=0), PretrainConfig(steps=3, hidden=8, embed=4), seed=0)
    >>> p.source.labels.shape, p.source_sample.shape[1], p.source.steps_done
    ((80,), 4, 3)
    """
    config = PretrainConfig() if config is None else config
    if not isinstance(config, PretrainConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a PretrainConfig")
    source, seed = _check_domain(source), check_seed(seed)
    net, _, result, stopped = _fit(source, config, seed, progress, "pretrain", "pretrain")
    rng = np.random.default_rng(derive_seed(seed, "pretrain", "sample"))
    keep = rng.permutation(source.n_nodes)[:AdaptConfig().source_sample]
    state = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
    return Pretrained(config, state, result.embeddings[np.sort(keep)], result, stopped)


def adapt(pretrained: Pretrained, target: NodeDomain, config: AdaptConfig | None = None, seed: int = 0,
          progress=None, _offset: int = 0, _total: int | None = None) -> Clustering:
    """Fine-tune a pretrained network on a target domain, label-free, aligning it with the source.

    Parameters
    ----------
    pretrained : Pretrained
        From :func:`pretrain`.
    target : NodeDomain
        The target graph (labels only score the result).
    config : AdaptConfig, optional
        Default ``AdaptConfig()``.
    seed : int
        The k-means start of the prototypes when they are not the source's, and the source sample.
    progress : callable, optional
        ``progress(step, total, metrics)``; returning False stops after that step.
    _offset, _total : int
        Step numbering when the fine-tune is part of a longer run (internal).

    Returns
    -------
    Clustering
        ``method="gfm_uc"``.

    Examples
    --------
    >>> from core.graph_clustering.data import make_csbm
    >>> p = pretrain(make_csbm(n=80, k=2, seed=0), PretrainConfig(steps=3, hidden=8, embed=4), seed=0)
    >>> c = adapt(p, make_csbm(n=60, k=2, dim=10, seed=1), AdaptConfig(steps=2), seed=0)
    >>> c.method, c.labels.shape, c.steps_done
    ('gfm_uc', (60,), 2)
    """
    import torch

    from core.graph_clustering.network import (ClusterNet, coral, confident_kl, dmon_losses, information_entropy,
                                               rbf_mmd2)

    config = AdaptConfig() if config is None else config
    if not isinstance(config, AdaptConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed an AdaptConfig")
    if not isinstance(pretrained, Pretrained):
        raise ValueError(f"pretrained: a {type(pretrained).__name__}; allowed the result of pretrain()")
    target, seed = _check_domain(target), check_seed(seed)
    pc = pretrained.config
    graph = _Graph(target, pc.feature_dim, pc.hops)
    k_source = pretrained.state["prototypes"].shape[0]
    net = ClusterNet(pc.feature_dim, pc.hidden, pc.embed, k_source, pc.hops)
    net.load_state_dict({k: torch.as_tensor(v) for k, v in pretrained.state.items()})
    if config.prototypes == "kmeans" or k_source != target.n_clusters:
        with torch.no_grad():
            z = net(graph.x, graph.edges, graph.readout).numpy()
        net.prototypes = torch.nn.Parameter(torch.as_tensor(
            _kmeans_prototypes(z, target.n_clusters, derive_seed(seed, "adapt")), dtype=torch.float32))
    rng = np.random.default_rng(derive_seed(seed, "adapt", "sample"))
    sample = pretrained.source_sample
    sample = torch.as_tensor(sample[np.sort(rng.permutation(len(sample))[:config.source_sample])])
    distance = {"mmd": rbf_mmd2, "coral": coral, "none": None}[config.alignment]

    def loss(z, q):
        spectral, collapse = dmon_losses(graph.adj, q)
        total = (config.modularity_weight * (spectral + config.collapse_weight * collapse)
                 + config.dec_weight * confident_kl(q, config.confident_fraction)
                 + config.entropy_weight * information_entropy(q))
        if distance is not None:
            total = total + config.align_weight * distance(z, sample)
        return total

    losses, traces, _ = _train(net, graph, loss, config.steps, config.lr, target.labels, progress, _offset,
                               _total or config.steps, "adapt")
    return _result("gfm_uc", target, net, graph, losses, traces)


def from_scratch(target: NodeDomain, config: PretrainConfig | None = None, steps: int = 60, seed: int = 0,
                 progress=None) -> Clustering:
    """The same network and loss trained on the target alone, for ``steps`` steps (the no-transfer control).

    Parameters
    ----------
    target : NodeDomain
        The target graph.
    config : PretrainConfig, optional
        The network and loss (``config.steps`` is replaced by ``steps``).
    steps : int
        The budget, 1 to 2000: the fine-tune's steps for a fair comparison.
    seed : int
        Initialisation (a different child seed than :func:`pretrain` uses).
    progress : callable, optional
        ``progress(step, total, metrics)``.

    Returns
    -------
    Clustering
        ``method="scratch"``.

    Examples
    --------
    >>> from core.graph_clustering.data import make_csbm
    >>> c = from_scratch(make_csbm(n=60, k=2, seed=1), PretrainConfig(hidden=8, embed=4), steps=2)
    >>> c.method, c.steps_done
    ('scratch', 2)
    """
    config = (PretrainConfig() if config is None else config)
    if not isinstance(config, PretrainConfig):
        raise ValueError(f"config: a {type(config).__name__}; allowed a PretrainConfig")
    config = config.replace(steps=steps)
    _, _, result, _ = _fit(_check_domain(target), config, check_seed(seed), progress, "scratch", "scratch")
    return result
