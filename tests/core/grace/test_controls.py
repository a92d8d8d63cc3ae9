"""The random-dictionary and scene-permutation nulls, and the images-to-clips transfer measure, on synthetic
embeddings whose true concepts are known (no CLIP needed)."""

import numpy as np
import pytest

from core.grace import fit_grace
from core.grace.controls import permuted_scenes, random_dictionary, random_directions
from core.grace.metrics import concept_attribute_agreement, sparsity
from core.grace.transfer import SHARED, shared_attributes, transfer_hits
from tests.core.grace.test_decompositions import WORDS, synthetic


def named(decomposition, x, attributes):
    return float(np.mean(list(concept_attribute_agreement(decomposition.encode(x), decomposition.vocabulary,
                                                          attributes).values())))


def test_the_random_dictionary_is_fitted_at_grace_sparsity_and_fails_the_named_measure():
    x, concepts, _ = synthetic()
    new_x, _, attributes = synthetic(seed=1)
    grace = fit_grace(x, WORDS, concepts, steps=150)
    target = sparsity(grace.encode(x))
    control = random_dictionary(x, WORDS, target, seed=3, steps=150, iters=7)
    assert control.method == "random dictionary" and control.vocabulary == WORDS
    # Its dictionary is the random directions, centred and unit, not the concepts'.
    from core.grace.space import concept_directions
    assert np.allclose(control.dictionary, concept_directions(random_directions(len(WORDS), x.shape[1], 3)))
    assert np.abs(control.dictionary @ concept_directions(concepts).T).max() < 0.9
    # Sparsity matched to GRACE's: the bisection's closest L0 is within one active concept, and it is GRACE's
    # own objective at the chosen weight.
    assert abs(sparsity(control.encode(x)) - target) < 1.0, (sparsity(control.encode(x)), target)
    alpha = control.history["sparsity_weight"]
    assert 1e-3 <= alpha <= 5.0
    # The names mean nothing: GRACE reads the attributes, the null does not (chance 1/4 on both attributes).
    assert named(grace, new_x, attributes) > 0.95
    assert named(control, new_x, attributes) < 0.6
    # Seeded: the same seed gives the same map.
    again = random_dictionary(x, WORDS, target, seed=3, steps=150, iters=7)
    assert np.array_equal(again.weight, control.weight)


def test_the_bisection_moves_sparsity_the_way_it_should():
    """A target of fewer active concepts gets a larger L1 weight (the bisection's direction is right)."""
    x, _, _ = synthetic(n=300)
    sparse = random_dictionary(x, WORDS, 2.0, seed=1, steps=60, iters=5)
    dense = random_dictionary(x, WORDS, 8.0, seed=1, steps=60, iters=5)
    assert sparse.history["sparsity_weight"] > dense.history["sparsity_weight"]
    assert sparsity(sparse.encode(x)) < sparsity(dense.encode(x))


@pytest.mark.parametrize("kwargs, field", [({"target_l0": 0.0}, "target_l0"), ({"target_l0": 11.0}, "target_l0"),
                                           ({"iters": 0}, "iters"), ({"low": 0.0}, "low"), ({"high": 1e-4}, "high"),
                                           ({"sparsity": 0.1}, "sparsity"), ({"seed": -1}, "seed")])
def test_random_dictionary_refuses_bad_settings(kwargs, field):
    x, _, _ = synthetic(n=20)
    args = {"target_l0": 3.0, **kwargs}
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
        random_dictionary(x, WORDS, **args)


@pytest.mark.parametrize("n", [2, 3, 17, 400])
def test_permuted_scenes_is_a_seeded_derangement(n):
    perm = permuted_scenes(n, seed=5)
    assert sorted(perm) == list(range(n)) and (perm != np.arange(n)).all()
    assert np.array_equal(perm, permuted_scenes(n, seed=5))
    with pytest.raises(ValueError, match="^n: "):
        permuted_scenes(1, seed=5)


def test_transfer_hits_read_only_the_shared_attributes():
    assert SHARED == ("shape", "colour", "size")
    attrs = [{"shape": "circle", "colour": "red", "size": "small", "motion": "upward"}]
    assert shared_attributes(attrs) == [{"shape": "circle", "colour": "red", "size": "small"}]

    class Fixed:                # a decomposition whose codes are given: "circle" and "blue" on, sizes off
        vocabulary = ["circle", "square", "red", "blue", "small", "large", "left"]

        def encode(self, embeddings):
            return np.tile([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 5.0], (len(embeddings), 1))

    hits = transfer_hits({"m": Fixed()}, np.zeros((1, 4)), attrs)["m"]
    # shape right, colour wrong, size has no positive code (not a hit): 1 of 3; "left" is not read.
    assert hits.tolist() == pytest.approx([1 / 3])


def test_family_scenes_are_the_stream_filtered_by_main_shape():
    from core.grace.scenes import make_scenes
    from core.grace.transfer import FAMILIES, family_scenes

    source, target = FAMILIES
    assert set(source) | set(target) == {"circle", "square", "triangle", "cross", "diamond", "ring"}
    assert not set(source) & set(target)
    scenes = family_scenes(30, seed=4, shapes=target)
    assert len(scenes) == 30 and all(a["shape"] in target for a in scenes.attributes)
    stream = make_scenes(200, seed=4)
    kept = [i for i, a in enumerate(stream.attributes) if a["shape"] in target][:30]
    assert np.array_equal(scenes.images, stream.images[kept])
    assert scenes.captions == [stream.captions[i] for i in kept]
    assert scenes.hidden == [stream.hidden[i] for i in kept]
    # A single rare shape still fills its quota (the stream is drawn further).
    assert [a["shape"] for a in family_scenes(40, seed=4, shapes=("ring",)).attributes] == ["ring"] * 40
    for bad, field in (({"shapes": ()}, "shapes"), ({"shapes": ("star",)}, "shapes"), ({"n": 0}, "n")):
        with pytest.raises(ValueError, match=f"^{field}: "):
            family_scenes(**{"n": 5, "seed": 4, "shapes": source, **bad})


@pytest.mark.slow("fits every method on 200 source-family images with the small CLIP")
def test_family_transfer_reads_the_target_family_and_names_matter():
    from core.grace import load_model
    from core.grace.transfer import IN_DOMAIN, family_transfer

    hits = family_transfer(load_model(), 200, 120, {"fit": 1, "test": 2, "method": 3}, random_control=False)
    assert {"GRACE", "SpLiCE", "no fitting", "shuffled labels", IN_DOMAIN} <= set(hits)
    for values in hits.values():
        assert values.shape == (120,) and set(np.round(values * 4, 9)) <= {0, 1, 2, 3, 4}   # four attributes
    assert hits["GRACE"].mean() > hits["shuffled labels"].mean() + 0.3       # the names carry over to new shapes
