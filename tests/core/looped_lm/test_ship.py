"""The shipped checkpoints against what their files say: each one's config is the recipe of ``SHIPPED``
(made by the ship command, seed 0), and the accuracies stored with it recompute from its weights."""

import numpy as np
import pytest

from core.looped_lm import LoopedConfig, accuracy_by_hops, accuracy_by_loops, load_pretrained
from core.looped_lm.config import SHIPPED
from core.looped_lm.pretrained import MADE_BY, SCALING_LOOPS, SEED

TOLERANCE = 2 / 512        # float32 on another CPU may flip an argmax or two of the 512 samples
LOOPS = (1, 4, 32)         # of the stored loop counts: the same samples, fewer passes (the suite's time)


def recomputed_accuracy(model, task) -> dict:
    return {str(k): v for k, v in accuracy_by_loops(model, task, loops=LOOPS).items()}


@pytest.mark.parametrize("name", list(SHIPPED))
def test_every_shipped_checkpoint_is_its_recipe_and_its_stored_accuracy_recomputes(name):
    shipped = load_pretrained(name)
    model, task = shipped.model, shipped.task
    assert model.config == LoopedConfig(**SHIPPED[name])
    assert model.metadata["seed"] == SEED and model.metadata["made_by"] == MADE_BY
    assert task.name == model.config.task            # scored on the true task, a control included
    stored, again = model.metadata["accuracy_by_loops"], recomputed_accuracy(model, task)
    assert set(stored) >= set(again)
    np.testing.assert_allclose([again[k] for k in again], [stored[k] for k in again], atol=TOLERANCE)


@pytest.mark.parametrize("name", ["pointer", "pointer_shuffled", "pointer_b2", "pointer_b2_shuffled"])
def test_the_pointer_checkpoints_stored_hop_accuracy_recomputes(name):
    shipped = load_pretrained(name)
    stored = shipped.model.metadata["accuracy_by_hops"]
    assert stored["loops"] == list(SCALING_LOOPS)
    rows = [SCALING_LOOPS.index(r) for r in LOOPS]
    again = accuracy_by_hops(shipped.model, shipped.task, LOOPS)
    np.testing.assert_allclose(again, np.array(stored["accuracy"])[rows], atol=TOLERANCE)


@pytest.mark.parametrize("name", ["pointer", "pointer_b2"])
def test_the_shuffled_pointer_control_learned_nothing_and_its_metadata_is_not_the_pointers(name):
    pointer, control = load_pretrained(name), load_pretrained(f"{name}_shuffled")
    stored = control.model.metadata["accuracy_by_loops"]
    assert max(stored.values()) < 0.3                # near chance (1/8) at every loop count, on the true targets
    # Control of the recomputation: the trained pointer's weights do not reproduce the control's stored numbers.
    trained = recomputed_accuracy(pointer.model, pointer.task)
    assert max(abs(trained[k] - stored[k]) for k in trained) > 0.5
