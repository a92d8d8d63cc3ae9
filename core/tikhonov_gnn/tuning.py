"""Model selection on a validation split: every model gets the same budget of configurations and epochs.

A model's configurations are each trained on the same inner split of the training graphs; the one with the best
validation accuracy (the first in the given order on a tie) is kept, and its held-out test accuracy is the
figure. The test graphs are never seen by the selection; nothing is retrained after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.seeding import derive_seed


@dataclass
class Selected:
    """The configuration a validation split chose, and what it scored.

    Attributes
    ----------
    index : int
        Its position in the configurations given.
    validation : list of float
        Every configuration's validation accuracy, in the order given.
    train_accuracy, test_accuracy : float
        The chosen model's accuracy on its training graphs and on the held-out test graphs.
    test_correct, test_count : int
        Correct held-out predictions and their number (the labelled nodes of node tasks), for binomial intervals.
    model : torch.nn.Module
        The chosen configuration's trained model (as trained on the inner split: nothing is retrained).
    train_curves : list of list of float
        Every configuration's training accuracy after each epoch, in the order given (to see a run that learned
        and then fell back).
    """

    index: int
    validation: list
    train_accuracy: float
    test_accuracy: float
    test_correct: int
    test_count: int
    model: object = field(default=None, repr=False, compare=False)
    train_curves: list = field(default_factory=list, repr=False, compare=False)


def select(configs, dataset, seed: int, test_index=None, train_index=None, validation_fraction: float = 0.2) -> Selected:
    """Train each of ``configs`` on the same inner split of the training graphs; keep the best on validation.

    Parameters
    ----------
    configs : sequence of TikhonovConfig
        The budget: every model compared should get as many configurations and epochs.
    dataset : Dataset
        The graphs.
    seed : int
        Seeds the outer split (unless indices are given), the inner split and every configuration's training.
    test_index, train_index : array of int, optional
        The held-out graphs and the graphs to select on; default a seeded split of ``configs[0].test_fraction``.
    validation_fraction : float
        The share of the training graphs held out for the selection, in (0, 0.5].

    Returns
    -------
    Selected
        The chosen configuration's index, every validation accuracy and the chosen model's scores.

    Examples
    --------
    >>> from core.tikhonov_gnn import TikhonovConfig, load_dataset
    >>> grid = [TikhonovConfig(model="gcn", epochs=2, hidden=8, lr=lr) for lr in (0.01, 0.001)]
    >>> s = select(grid, load_dataset("sbm_homophilic"), seed=0)
    >>> len(s.validation), s.index in (0, 1), 0 <= s.test_accuracy <= 1
    (2, True, True)
    """
    from core.common.config import check_range
    from core.tikhonov_gnn.training import correct_count, holdout_split, train

    if not configs:
        raise ValueError("configs: empty; allowed at least one configuration to select from")
    validation_fraction = check_range("validation_fraction", validation_fraction, 0.0, 0.5, low_open=True)
    if test_index is None:
        train_index, test_index = holdout_split(dataset, configs[0].test_fraction, seed)
    train_index, test_index = np.asarray(train_index, dtype=int), np.asarray(test_index, dtype=int)
    fit, held = (train_index[p] for p in _inner_split(dataset, train_index, validation_fraction,
                                                      derive_seed(seed, "inner")))
    runs, scores = [], []
    for k, config in enumerate(configs):
        result = train(config, dataset, seed=derive_seed(seed, "config", k), train_index=fit, test_index=held)
        runs.append(result)
        scores.append(result.final_test_accuracy)
    best = int(np.argmax(scores))
    model = runs[best].model
    correct, count = correct_count(model, dataset, test_index)
    return Selected(best, [float(s) for s in scores], float(runs[best].train_accuracy[-1]), correct / count,
                    correct, count, model, [[float(a) for a in r.train_accuracy] for r in runs])


def _inner_split(dataset, train_index, fraction: float, seed: int):
    """Positions in ``train_index`` of the graphs to fit and to validate on (stratified for graph tasks)."""
    from sklearn.model_selection import train_test_split

    positions = np.arange(len(train_index))
    stratify = dataset.labels[train_index] if dataset.task == "graph" else None
    return train_test_split(positions, test_size=fraction, random_state=seed, stratify=stratify)
