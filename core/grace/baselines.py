"""Baselines with GRACE's output form (codes [n, len(vocabulary)]), in the same centred space.

- SpLiCE (per instance): for each sample, min_{w ≥ 0} ‖w D − z‖² + λ‖w‖₁, solved with
  scikit-learn's Lasso(positive=True). sklearn minimises (1/2m)‖y − Xw‖² + α‖w‖₁ over m = d rows,
  so α = λ / (2d).
- TextSpan-style greedy directions (over the whole set): repeatedly pick the concept direction along
  which the remaining data varies most, record each sample's coefficient on it, and remove that
  direction from the data and from the remaining concepts (Gram–Schmidt). Codes are signed.
- A TopK sparse autoencoder with one latent per word; latents are named by matching decoder rows to
  concept directions (Hungarian assignment on cosine), so its codes land on the vocabulary too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.linear_model import Lasso

from core.common.config import check_range
from core.common.seeding import check_seed, torch_seeded
from core.grace.space import Decomposition, Space, check_embeddings, check_vocabulary, concept_directions, unit


@dataclass
class SpliceDecomposition(Decomposition):
    """SpLiCE's per-sample nonnegative Lasso codes over the concept directions.

    Attributes
    ----------
    vocabulary : list of str
        The concepts' names, one per row of ``dictionary``.
    dictionary : numpy.ndarray
        [k, d] centred, unit concept directions D.
    space : Space
        The centred space the codes live in.
    method : str
        ``"SpLiCE"``.
    l1 : float
        λ of the per-sample problem.
    """

    l1: float = 0.1

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        z = self.space.centre(check_embeddings("embeddings", embeddings, self.dictionary.shape[1]))
        d = z.shape[1]
        lasso = Lasso(alpha=self.l1 / (2 * d), fit_intercept=False, positive=True, max_iter=10_000, tol=1e-6)
        lasso.fit(self.dictionary.T, z.T)
        return np.atleast_2d(lasso.coef_)


def fit_splice(image_embeddings, vocabulary, concept_embeddings, l1: float = 0.1) -> SpliceDecomposition:
    r"""SpLiCE, the per-instance baseline: a nonnegative Lasso of each centred embedding on the concepts.

    Nothing is optimised here: the returned decomposition solves one problem per sample when it
    encodes,

    .. math::

        w^\star(z) = \arg\min_{w \ge 0} \lVert w D - z \rVert_2^2 + \lambda \lVert w \rVert_1,

    with z the centred embedding and D the centred concept directions (scikit-learn's
    ``Lasso(positive=True)`` with α = λ / (2d)).

    Parameters
    ----------
    image_embeddings : array_like of shape (n, d)
        Finite embeddings; only their mean and mean radius are used (they define the centred space).
    vocabulary : list of str
        One name per row of ``concept_embeddings``.
    concept_embeddings : array_like of shape (k, d)
        The words' text embeddings, same width d.
    l1 : float, default 0.1
        λ, in [0, 100]; larger gives sparser codes.

    Returns
    -------
    SpliceDecomposition
        ``encode(embeddings)`` gives nonnegative codes [m, k]; ``reconstruct(codes)`` maps them back.

    Raises
    ------
    ValueError
        ``"<field>: ...; allowed ..."`` for a bad array, a vocabulary of the wrong length or λ out of range.

    References
    ----------
    .. [1] SpLiCE: sparse linear concept embeddings, the instance-level baseline named in
       "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, c = rng.normal(size=(30, 8)), rng.normal(size=(5, 8))
    >>> fitted = fit_splice(x, ["a", "b", "c", "d", "e"], c, l1=0.05)
    >>> codes = fitted.encode(x)
    >>> codes.shape, bool((codes >= 0).all())
    ((30, 5), True)
    """
    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    vocabulary = check_vocabulary(vocabulary, len(c))
    l1 = check_range("l1", l1, 0.0, 100.0)
    return SpliceDecomposition(vocabulary, concept_directions(c), Space.fit(x), "SpLiCE", l1)


def splice(image_embeddings, concept_embeddings, l1: float = 0.1) -> np.ndarray:
    r"""Per-sample nonnegative sparse codes [n, k]: :func:`fit_splice` then ``encode``, in one call.

    Each row solves :math:`\min_{w \ge 0} \lVert w D - z \rVert_2^2 + \lambda \lVert w \rVert_1`
    in the space centred on ``image_embeddings`` (see :func:`fit_splice`).

    Parameters
    ----------
    image_embeddings : array_like of shape (n, d)
        The embeddings to decompose; they also define the centred space.
    concept_embeddings : array_like of shape (k, d)
        The concepts' text embeddings.
    l1 : float, default 0.1
        λ, in [0, 100].

    Returns
    -------
    numpy.ndarray
        Nonnegative codes of shape (n, k), columns in the order of ``concept_embeddings``.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> codes = splice(rng.normal(size=(12, 6)), rng.normal(size=(4, 6)), l1=0.05)
    >>> codes.shape, bool((codes >= 0).all())
    ((12, 4), True)
    """
    words = [str(i) for i in range(len(concept_embeddings))]
    return fit_splice(image_embeddings, words, concept_embeddings, l1).encode(image_embeddings)


@dataclass
class TextSpanDecomposition(Decomposition):
    """TextSpan-style greedy orthogonal directions, one per chosen word; codes are signed projections.

    Attributes
    ----------
    vocabulary : list of str
        The concepts' names.
    dictionary : numpy.ndarray
        [k, d]: the orthonormal direction of each chosen word; zero rows for words not chosen.
    space : Space
        The centred space.
    method : str
        ``"TextSpan"``.
    chosen : list of int
        Vocabulary indices in the order they were picked.
    """

    chosen: list = None            # vocabulary indices in the order picked

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        z = self.space.centre(check_embeddings("embeddings", embeddings, self.dictionary.shape[1]))
        codes = np.zeros((len(z), len(self.vocabulary)))
        codes[:, self.chosen] = z @ self.dictionary[self.chosen].T
        return codes


def fit_textspan(image_embeddings, vocabulary, concept_embeddings, n_directions: int = 5) -> TextSpanDecomposition:
    r"""Greedy TextSpan-style directions over the whole set: the words along which the data spread most.

    At each of ``n_directions`` steps the word j whose unit direction :math:`t_j` maximises the
    standard deviation of :math:`Z t_j` over the (centred, mean-removed) data Z is picked; then its
    direction is removed from the data and from the remaining words (Gram–Schmidt),
    :math:`Z \leftarrow Z - (Z t)t^\top`. A sample's code on a chosen word is its projection
    :math:`z \cdot t_j` (signed); unchosen words get 0.

    Parameters
    ----------
    image_embeddings : array_like of shape (n, d)
        The embeddings the directions are picked on.
    vocabulary : list of str
        One name per row of ``concept_embeddings``.
    concept_embeddings : array_like of shape (k, d)
        The words' text embeddings.
    n_directions : int, default 5
        Words to pick, 1 to min(k, d).

    Returns
    -------
    TextSpanDecomposition
        ``chosen`` lists the picked words' indices in order.

    Raises
    ------
    ValueError
        ``"<field>: ...; allowed ..."`` for a bad array, vocabulary or ``n_directions``.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``);
       TextSpan is one of its baselines.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, c = rng.normal(size=(30, 8)), rng.normal(size=(5, 8))
    >>> fitted = fit_textspan(x, ["a", "b", "c", "d", "e"], c, n_directions=2)
    >>> len(fitted.chosen), fitted.encode(x).shape
    (2, (30, 5))
    >>> t = fitted.dictionary[fitted.chosen]
    >>> bool(np.allclose(t @ t.T, np.eye(2)))
    True
    """
    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    vocabulary = check_vocabulary(vocabulary, len(c))
    n_directions = check_range("n_directions", n_directions, 1, min(len(c), x.shape[1]), integer=True)
    space = Space.fit(x)
    data = space.centre(x)
    data = data - data.mean(0)
    bank = concept_directions(c)
    directions = np.zeros_like(bank)       # orthonormal direction per chosen word
    chosen = []
    for _ in range(n_directions):
        spread = (data @ unit(bank).T).std(0)
        spread[chosen] = -np.inf
        k = int(np.argmax(spread))
        t = unit(bank[k])
        chosen.append(k)
        directions[k] = t
        data = data - np.outer(data @ t, t)
        bank = bank - np.outer(bank @ t, t)
    return TextSpanDecomposition(vocabulary, directions, space, "TextSpan", chosen)


@dataclass
class SAEDecomposition(Decomposition):
    """A TopK sparse autoencoder whose latents were named by a Hungarian match to the concept words.

    Attributes
    ----------
    vocabulary : list of str
        The concepts' names; latent j is named ``vocabulary[j]``.
    dictionary : numpy.ndarray
        [k, d]: the decoder rows, in vocabulary order.
    space : Space
        The centred space.
    method : str
        ``"SAE"``.
    encoder : numpy.ndarray
        [d, k] encoder, columns in vocabulary order.
    bias : numpy.ndarray
        [k] encoder bias.
    k_active : int
        Latents kept per sample (the K of TopK).
    """

    encoder: np.ndarray = None     # [d, k], columns already in vocabulary order
    bias: np.ndarray = None
    k_active: int = 5

    def encode(self, embeddings: np.ndarray) -> np.ndarray:
        z = self.space.centre(check_embeddings("embeddings", embeddings, self.dictionary.shape[1]))
        pre = np.maximum(z @ self.encoder + self.bias, 0.0)
        keep = np.argsort(-pre, axis=1)[:, : self.k_active]
        codes = np.zeros_like(pre)
        np.put_along_axis(codes, keep, np.take_along_axis(pre, keep, 1), 1)
        return codes


def fit_sae(image_embeddings, vocabulary, concept_embeddings, k_active: int = 5, steps: int = 600, lr: float = 1e-2,
            seed: int = 0) -> SAEDecomposition:
    r"""A TopK sparse autoencoder with one latent per word, latents named by a Hungarian match to the words.

    The encoder and decoder are trained full-batch with Adam on the centred embeddings Z,

    .. math::

        c = \mathrm{TopK}_K\big(\mathrm{ReLU}(z W + b)\big), \qquad
        \min_{W, b, D_{\mathrm{dec}}} \frac1n \sum_i \lVert z_i - c_i D_{\mathrm{dec}} \rVert_2^2 ,

    then latent rows are assigned to words by maximising the total cosine between decoder rows and
    concept directions (``scipy.optimize.linear_sum_assignment``), so the codes land on the vocabulary.
    The SAE never reads the words during training: its names are given after the fact.

    Parameters
    ----------
    image_embeddings : array_like of shape (n, d)
        The embeddings to train on.
    vocabulary : list of str
        One name per row of ``concept_embeddings`` (and per latent).
    concept_embeddings : array_like of shape (k, d)
        The words' text embeddings, used only to name the latents.
    k_active : int, default 5
        Latents kept per sample (the K of TopK), 1 to k.
    steps : int, default 600
        Full-batch Adam steps, 1 to 100,000.
    lr : float, default 0.01
        Adam's learning rate, in (0, 10].
    seed : int, default 0
        Seeds the initial encoder (0 to 2**32 - 1).

    Returns
    -------
    SAEDecomposition
        ``encode`` gives nonnegative codes [m, k] with at most ``k_active`` nonzeros per row.

    Raises
    ------
    ValueError
        ``"<field>: ...; allowed ..."`` before any training, for any argument out of range.

    References
    ----------
    .. [1] "GRACE concept decompositions" (NeurIPS 2026, ``docs/PAPERS.md``);
       the SAE is one of its baselines.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x, c = rng.normal(size=(30, 8)), rng.normal(size=(5, 8))
    >>> fitted = fit_sae(x, ["a", "b", "c", "d", "e"], c, k_active=2, steps=10)
    >>> codes = fitted.encode(x)
    >>> codes.shape, int((codes > 0).sum(1).max()) <= 2
    ((30, 5), True)
    """
    x = check_embeddings("image_embeddings", image_embeddings)
    c = check_embeddings("concept_embeddings", concept_embeddings, x.shape[1])
    vocabulary = check_vocabulary(vocabulary, len(c))
    k_active = check_range("k_active", k_active, 1, len(c), integer=True)
    steps = check_range("steps", steps, 1, 100_000, integer=True)
    lr = check_range("lr", lr, 0.0, 10.0, low_open=True)
    seed = check_seed(seed)
    import torch  # here, not at the top: the page's first view unpacks shipped decompositions without torch

    space = Space.fit(x)
    z = torch.as_tensor(space.centre(x), dtype=torch.float32)
    k, d = len(c), x.shape[1]
    with torch_seeded(seed):
        enc = torch.nn.Parameter(torch.randn(d, k) / np.sqrt(d))
        bias = torch.nn.Parameter(torch.zeros(k))
        dec = torch.nn.Parameter(enc.detach().T.clone())
    opt = torch.optim.Adam([enc, bias, dec], lr=lr)
    for _ in range(steps):
        pre = torch.relu(z @ enc + bias)
        top = pre.topk(k_active, dim=1)
        codes = torch.zeros_like(pre).scatter(1, top.indices, top.values)
        loss = ((z - codes @ dec) ** 2).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dec_np = dec.detach().numpy().astype(np.float64)
    concepts = concept_directions(c)
    rows, cols = linear_sum_assignment(-(unit(dec_np) @ concepts.T))   # latent rows[i] -> word cols[i]
    order = np.empty(k, dtype=int)
    order[cols] = rows
    return SAEDecomposition(vocabulary, dec_np[order], space, "SAE",
                            enc.detach().numpy().astype(np.float64)[:, order], bias.detach().numpy()[order], k_active)
