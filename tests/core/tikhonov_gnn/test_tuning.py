"""Selection on a validation split: the best configuration on validation is kept, the test graphs never choose."""

import dataclasses

import numpy as np
import pytest

from core.tikhonov_gnn import TikhonovConfig, load_dataset
from core.tikhonov_gnn.training import correct_count, holdout_split
from core.tikhonov_gnn.tuning import select

DATA = load_dataset("mutag")
GRID = [TikhonovConfig(model="gcn", epochs=15, hidden=16, lr=lr) for lr in (1e-7, 0.01)]


def test_the_configuration_best_on_validation_is_kept_and_scored_on_the_test_graphs():
    s = select(GRID, DATA, seed=0)
    assert s.index == int(np.argmax(s.validation)) and s.validation[1] > s.validation[0]   # lr 1e-7 learns nothing
    _, test = holdout_split(DATA, GRID[0].test_fraction, 0)
    assert s.test_count == len(test) and s.test_accuracy == pytest.approx(s.test_correct / s.test_count)
    assert [len(c) for c in s.train_curves] == [g.epochs for g in GRID]          # every configuration's curve
    assert s.train_curves[s.index][-1] == pytest.approx(s.train_accuracy)
    correct, count = correct_count(s.model, DATA, test)                            # the kept model is the chosen one
    assert (correct, count) == (s.test_correct, s.test_count)


def test_the_test_graphs_never_choose():
    """Flip the held-out graphs' labels: validation (and so the choice) is unchanged, the test score is not."""
    train, test = holdout_split(DATA, 0.2, 0)
    graphs = list(DATA.graphs)
    for i in test:
        graphs[i] = dataclasses.replace(graphs[i], label=1 - graphs[i].label)
    flipped = dataclasses.replace(DATA, graphs=graphs)
    a = select(GRID, DATA, seed=0, train_index=train, test_index=test)
    b = select(GRID, flipped, seed=0, train_index=train, test_index=test)
    assert a.validation == b.validation and a.index == b.index
    assert b.test_correct == a.test_count - a.test_correct                 # the control: the test score moved


@pytest.mark.parametrize("kwargs, message", [
    ({"configs": []}, r"^configs: empty; allowed at least one configuration to select from$"),
    ({"validation_fraction": 0.0}, r"^validation_fraction: 0 is out of range; allowed in \(0, 0\.5\]$"),
])
def test_bad_arguments_name_the_field(kwargs, message):
    with pytest.raises(ValueError, match=message):
        select(**{"configs": GRID, "dataset": DATA, "seed": 0, **kwargs})
