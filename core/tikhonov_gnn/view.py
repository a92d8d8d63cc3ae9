"""The shipped first view: what the page draws for each dataset, as plain arrays (no torch).

``assets/tikhonov_gnn/<dataset>/view.npz``, written by ``python -m core.tikhonov_gnn.ship`` from
the shipped checkpoint next to it, holds:

- ``theta``: the Tikhonov layer's Bernstein coefficients (p on [0, 2] follows from them);
- ``lam``, ``p``: p(lambda) on the grid the page plots;
- ``q``, ``offsets``: every graph's node scores, concatenated (graph ``i`` is
  ``q[offsets[i]:offsets[i + 1]]``), so any graph the visitor picks is explained;
- ``example``, ``operator``: the index of the example graph (the page's default) and its R from
  the model's own float32 solve; other graphs' R is re-solved in numpy from q and theta;
- ``positions``: every graph's 2-D node layout (:func:`layout`), concatenated like ``q``;
- ``models``, ``accuracy``: the held-out accuracy of the three shipped models.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.common.claims import results_path
from core.tikhonov_gnn.data import Dataset
from core.tikhonov_gnn.explain import Explanation, explanation_from_scores

ASSETS = asset_dir("tikhonov_gnn")
SEED = 0            # the seed of the shipped datasets and models
VIEW = "view.npz"


@dataclass
class ShippedView:
    """The page's first view of one dataset, as the shipped model sees it (plain arrays, no torch).

    Attributes
    ----------
    dataset : str
        The dataset's name.
    theta : ndarray of shape (K + 1,)
        The Tikhonov layer's Bernstein coefficients.
    lam : ndarray
        The lambda grid the page plots.
    p : ndarray
        p(lambda) on that grid.
    q : ndarray
        Every graph's node scores, concatenated.
    offsets : ndarray of int
        Graph i's scores are ``q[offsets[i]:offsets[i + 1]]``.
    example : int
        The graph the page opens on.
    operator : ndarray of shape (n, n)
        R of the example graph, from the model's own float32 solve.
    accuracy : dict
        Model -> held-out accuracy (tikhonov, gcn, gin).
    positions : ndarray of shape (total nodes, 2)
        Every graph's node layout, concatenated like ``q``.

    Examples
    --------
    >>> view = load_view("motifs")
    >>> view.n_graphs, sorted(view.accuracy)
    (400, ['gcn', 'gin', 'tikhonov'])
    """

    dataset: str
    theta: np.ndarray
    lam: np.ndarray
    p: np.ndarray
    q: np.ndarray
    offsets: np.ndarray
    example: int
    operator: np.ndarray
    accuracy: dict
    positions: np.ndarray

    @property
    def n_graphs(self) -> int:
        """The number of graphs."""
        return self.offsets.size - 1

    def scores(self, index: int) -> np.ndarray:
        """q of graph ``index``."""
        if not 0 <= index < self.n_graphs:
            raise ValueError(f"graph: {index} is out of range; allowed 0..{self.n_graphs - 1}")
        return self.q[self.offsets[index]:self.offsets[index + 1]].astype(float)

    def layout(self, index: int) -> np.ndarray:
        """The stored node positions of graph ``index``, (n, 2)."""
        self.scores(index)                       # the same range check
        return self.positions[self.offsets[index]:self.offsets[index + 1]].astype(float)

    def explanation(self, dataset: Dataset, index: int) -> Explanation:
        """The shipped model's explanation of ``dataset.graphs[index]``, from the stored numbers.

        Parameters
        ----------
        dataset : Dataset
            The shipped dataset (``load_dataset(name, seed=SEED)``), whose graph sizes must match.
        index : int
            The graph.

        Returns
        -------
        Explanation
        """
        graph = dataset.graphs[index]
        q = self.scores(index)
        if q.size != graph.n_nodes:
            raise ValueError(f"view: graph {index} has {graph.n_nodes} nodes but {q.size} stored scores; "
                             "regenerate with `python -m core.tikhonov_gnn.ship --views`")
        operator = self.operator if index == self.example else None
        return explanation_from_scores(q, self.theta, graph, grid=self.lam.size, operator=operator)


def save_view(view: ShippedView, directory: Path) -> Path:
    """Write ``view`` as ``directory/view.npz`` (compressed, no pickles)."""
    path = Path(directory) / VIEW
    models = list(view.accuracy)          # in the order given (the ship script: tikhonov, gcn, gin)
    np.savez_compressed(path, theta=view.theta, lam=view.lam, p=view.p, q=view.q.astype(np.float32),
                        offsets=view.offsets, example=np.int64(view.example),
                        operator=view.operator.astype(np.float32), models=np.array(models),
                        accuracy=np.array([view.accuracy[m] for m in models]),
                        positions=view.positions.astype(np.float32))
    return path


def load_view(name: str, assets: Path = ASSETS) -> ShippedView | None:
    """The shipped view of dataset ``name``, or None when it has not been shipped.

    Parameters
    ----------
    name : str
        One of ``DATASETS``.
    assets : pathlib.Path
        The folder holding ``<name>/view.npz`` (default ``assets/tikhonov_gnn``).

    Returns
    -------
    ShippedView or None
        Read without pickles (``allow_pickle=False``).

    Examples
    --------
    >>> view = load_view("planted_feature")
    >>> view.scores(0).shape, load_view("no_such_dataset") is None
    ((20,), True)
    """
    import re

    if not isinstance(name, str) or not re.match(r"^[a-z][a-z0-9_]*$", name):   # no path outside ``assets``
        raise ValueError(f"name: {name!r} is not a dataset key; allowed lower-case letters, digits and '_'")
    path = Path(assets) / name / VIEW
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as z:
        return ShippedView(name, z["theta"], z["lam"], z["p"], z["q"], z["offsets"], int(z["example"]),
                           z["operator"].astype(float),
                           {str(m): float(a) for m, a in zip(z["models"], z["accuracy"])}, z["positions"])


RESULTS = results_path("tikhonov_gnn")


def load_cross_validation(dataset: str, results: Path = RESULTS) -> dict | None:
    """The bench's 10-fold accuracies for ``dataset`` (``{model: {"mean", "std", "fold_accuracies"}}``),
    or None when the bench has not cross-validated it (plain JSON, no torch)."""
    import json

    path = Path(results)
    if not path.is_file():
        return None
    cv = json.loads(path.read_text()).get(f"{dataset}_10fold")
    if not cv:
        return None
    return {m: {k: cv[m][k] for k in ("mean", "std", "fold_accuracies")} for m in cv}


def layout(adjacency: np.ndarray, seed: int = 0) -> np.ndarray:
    """Node positions for drawing, (n, 2): Kamada-Kawai up to 80 nodes, a seeded spring layout beyond.

    Parameters
    ----------
    adjacency : array (n, n)
    seed : int
        Used by the spring layout only.

    Returns
    -------
    ndarray (n, 2)
    """
    import networkx as nx

    g = nx.from_numpy_array(np.asarray(adjacency, dtype=float))
    n = g.number_of_nodes()
    pos = nx.kamada_kawai_layout(g) if n <= 80 else nx.spring_layout(g, seed=seed)
    return np.array([pos[i] for i in range(n)], dtype=float).reshape(n, 2)
