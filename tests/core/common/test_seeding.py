import numpy as np
import pytest
import torch

from core.common.seeding import MAX_SEED, check_seed, make_rng, make_torch_generator, torch_seeded


def test_same_seed_same_numbers_and_independent_generators():
    a, b = make_rng(3), make_rng(3)
    first = a.normal(size=5)
    np.testing.assert_array_equal(first, b.normal(size=5))
    assert not np.array_equal(first, make_rng(4).normal(size=5))
    # A generator per call: drawing from one does not move another.
    c = make_rng(3)
    make_rng(3).normal(size=100)
    np.testing.assert_array_equal(c.normal(size=5), first)


def test_global_numpy_state_is_untouched():
    np.random.seed(0)
    expected = np.random.rand()
    np.random.seed(0)
    make_rng(1).normal(size=10)
    assert np.random.rand() == expected


def test_torch_generator_is_deterministic():
    x = torch.randn(4, generator=make_torch_generator(11))
    y = torch.randn(4, generator=make_torch_generator(11))
    assert torch.equal(x, y)


def test_torch_seeded_builds_the_same_model_and_restores_global_state():
    torch.manual_seed(123)
    expected_next = torch.rand(1)
    torch.manual_seed(123)
    with torch_seeded(5):
        w1 = torch.nn.Linear(3, 2).weight.detach().clone()
    after = torch.rand(1)
    with torch_seeded(5):
        w2 = torch.nn.Linear(3, 2).weight.detach().clone()
    assert torch.equal(w1, w2)
    assert torch.equal(after, expected_next)


@pytest.mark.parametrize("bad", [-1, MAX_SEED + 1, 1.5, "7", True, None])
def test_bad_seeds_are_refused(bad):
    with pytest.raises(ValueError, match=rf"^seed: .*; allowed 0\.\.{MAX_SEED}$"):
        check_seed(bad)
