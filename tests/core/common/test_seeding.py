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


def test_derived_seeds_are_valid_distinct_and_stable_at_the_edges_of_the_range():
    import subprocess
    import sys

    from core.common.seeding import derive_rng, derive_seed

    parents = [0, 1, 2, 999, 1000, 1001, MAX_SEED - 1000, MAX_SEED - 1, MAX_SEED]
    children = {(p, i, r): derive_seed(p, i, r) for p in parents for i in range(12) for r in range(6)}
    assert all(0 <= c <= MAX_SEED for c in children.values())
    assert len(set(children.values())) == len(children)          # no collisions (s at i=1 vs s+1000 at i=0)
    assert derive_seed(5, 1, 0) != derive_seed(1005, 0, 0)
    assert derive_seed(7, "fold", 3) == derive_seed(7, "fold", 3) != derive_seed(7, "fold", 4)
    assert derive_seed(7, "fold") != derive_seed(7, "patient")
    assert derive_seed(7) != derive_seed(7, 0)                      # a path entry changes the child
    np.testing.assert_array_equal(derive_rng(MAX_SEED, 2).normal(size=3), make_rng(derive_seed(MAX_SEED, 2)).normal(size=3))
    code = ("from core.common.seeding import derive_seed, MAX_SEED; "
            "print(derive_seed(MAX_SEED, 'fold', 3), derive_seed(0, 1, 2))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert [int(x) for x in other] == [derive_seed(MAX_SEED, "fold", 3), derive_seed(0, 1, 2)]   # across processes


@pytest.mark.parametrize("bad", [-1, MAX_SEED + 1, 1.5, "3", True])
def test_derive_seed_refuses_a_bad_parent(bad):
    from core.common.seeding import derive_seed

    with pytest.raises(ValueError, match="^seed: "):
        derive_seed(bad, 1)


@pytest.mark.parametrize("bad", [-1, 1.5, None, True])
def test_derive_seed_refuses_a_bad_path_entry(bad):
    from core.common.seeding import derive_seed

    with pytest.raises(ValueError, match="^path: "):
        derive_seed(1, bad)


def test_no_seed_arithmetic_in_the_code():
    """Child seeds come from derive_seed: no ``seed + k`` or ``k * seed`` anywhere in core/, pages/ or app/."""
    import ast
    from pathlib import Path

    def is_seed(node):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        return name == "seed" or name.endswith("_seed")

    root = Path(__file__).resolve().parents[3]
    offenders, scanned = [], 0
    for folder in ("core", "pages", "app"):
        for path in (root / folder).rglob("*.py"):
            scanned += 1
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Mod)) \
                        and (is_seed(node.left) or is_seed(node.right)):
                    offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert scanned > 50 and offenders == []
