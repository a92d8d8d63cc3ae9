"""GRACE and the baselines on synthetic embeddings whose true concepts are known (no CLIP needed)."""

import numpy as np
import pytest
import torch

from core.common.progress import ProgressLog
from core.grace import fit_grace, fit_sae, fit_splice, fit_textspan, splice
from core.grace.grace import neighbourhood_kl
from core.grace.metrics import concept_attribute_agreement, sparsity, triplet_agreement
from core.grace.space import concept_directions

WORDS = ["red", "green", "blue", "yellow", "circle", "square", "triangle", "cross", "purple", "star"]


def synthetic(n=600, d=24, seed=0):
    """Embeddings = mean + one colour direction + one shape direction + noise; concepts = those directions."""
    concepts = np.random.default_rng(99).normal(size=(len(WORDS), d))     # the same concepts for every seed
    rng = np.random.default_rng(seed)
    colour, shape = rng.integers(0, 4, n), rng.integers(0, 4, n)
    x = 3 * np.random.default_rng(98).normal(size=d) + concepts[colour] + concepts[4 + shape] + 0.15 * rng.normal(size=(n, d))
    attributes = [{"colour": WORDS[c], "shape": WORDS[4 + s]} for c, s in zip(colour, shape)]
    return x / np.linalg.norm(x, axis=1, keepdims=True), concepts, attributes


def test_grace_recovers_the_true_concepts_on_new_samples():
    x, concepts, attributes = synthetic()
    new_x, _, new_attributes = synthetic(seed=1)
    log = ProgressLog()
    grace = fit_grace(x, WORDS, concepts, steps=200, progress=log)
    codes = grace.encode(new_x)
    assert codes.shape == (len(new_x), len(WORDS)) and (codes >= 0).all()
    agreement = concept_attribute_agreement(codes, WORDS, new_attributes)
    assert min(agreement.values()) > 0.95, agreement
    assert log.steps[-1] == 200 and log.metrics[-1]["loss"] < log.metrics[0]["loss"]
    assert triplet_agreement(codes, new_attributes) > 0.9


def test_geometry_term_pulls_code_neighbourhoods_towards_the_embeddings():
    x, concepts, _ = synthetic()
    plain = fit_grace(x, WORDS, concepts, geometry=0.0, steps=200)
    geometric = fit_grace(x, WORDS, concepts, geometry=2.0, steps=200)
    z = torch.as_tensor(plain.space.centre(x), dtype=torch.float32)
    kl = [float(neighbourhood_kl(z, torch.as_tensor(f.encode(x), dtype=torch.float32), 0.1))
          for f in (plain, geometric)]
    assert kl[1] < 0.8 * kl[0], kl


def test_stop_request_ends_the_fit_early():
    x, concepts, _ = synthetic(n=100)
    log = ProgressLog(stop_after=5)
    grace = fit_grace(x, WORDS, concepts, steps=100, progress=log)
    assert log.steps == [1, 2, 3, 4, 5] and len(grace.history["step"]) == 5


@pytest.mark.parametrize("kwargs, field", [({"sparsity": -1}, "sparsity"), ({"temperature": 0}, "temperature"),
                                           ({"steps": 0}, "steps")])
def test_bad_settings_name_the_field(kwargs, field):
    x, concepts, _ = synthetic(n=20)
    with pytest.raises(ValueError, match=f"^{field}: .*allowed"):
        fit_grace(x, WORDS, concepts, **kwargs)


def test_mismatched_inputs_are_refused():
    x, concepts, _ = synthetic(n=20)
    with pytest.raises(ValueError, match="^vocabulary: "):
        fit_grace(x, WORDS[:-1], concepts)
    with pytest.raises(ValueError, match="^concept_embeddings: width"):
        fit_grace(x, WORDS, concepts[:, :5])
    with pytest.raises(ValueError, match="^image_embeddings: "):
        fit_grace(np.full((3, 24), np.nan), WORDS, concepts)


def test_splice_solves_its_lasso_problem():
    """KKT of min_{w>=0} ||w D - z||^2 + l1 ||w||_1 for every sample: an independent optimality check."""
    x, concepts, _ = synthetic(n=40)
    l1 = 0.2
    fitted = fit_splice(x, WORDS, concepts, l1)
    codes = fitted.encode(x)
    z, d = fitted.space.centre(x), fitted.dictionary
    grad = 2 * (codes @ d - z) @ d.T                    # gradient of the squared error
    assert (codes >= 0).all()
    on = codes > 1e-8
    assert np.allclose(grad[on], -l1, atol=2e-4)
    assert (grad[~on] >= -l1 - 2e-4).all()
    assert np.allclose(splice(x, concepts, l1), codes)


def test_splice_gets_sparser_as_l1_grows():
    x, concepts, _ = synthetic(n=60)
    l0 = [sparsity(fit_splice(x, WORDS, concepts, lam).encode(x)) for lam in (0.01, 0.1, 0.5)]
    assert l0[0] > l0[1] > l0[2]


def test_textspan_removes_each_chosen_direction():
    x, concepts, _ = synthetic()
    fitted = fit_textspan(x, WORDS, concepts, n_directions=4)
    chosen = fitted.dictionary[fitted.chosen]
    assert np.allclose(chosen @ chosen.T, np.eye(4), atol=1e-6)       # orthonormal, one per pick
    assert sparsity(fitted.encode(x)) == 4
    # The first pick is the concept along which the centred data varies most.
    z = fitted.space.centre(x)
    spread = ((z - z.mean(0)) @ concept_directions(concepts).T).std(0)
    assert fitted.chosen[0] == int(np.argmax(spread))


def test_topk_sae_keeps_k_latents_and_names_them():
    x, concepts, attributes = synthetic()
    fitted = fit_sae(x, WORDS, concepts, k_active=2, steps=300)
    codes = fitted.encode(x)
    assert ((codes > 0).sum(1) <= 2).all()
    assert fitted.dictionary.shape == (len(WORDS), x.shape[1])
    # Latents are named by a maximum-cosine assignment: the named diagonal beats any other pairing's mean.
    cosine = fitted.dictionary @ concept_directions(concepts).T / np.linalg.norm(fitted.dictionary, axis=1)[:, None]
    assert np.trace(cosine) >= np.trace(np.roll(cosine, 1, axis=1))
    assert min(concept_attribute_agreement(codes, WORDS, attributes).values()) > 0.5


def test_the_no_fitting_control_is_relu_of_concept_similarities():
    from core.grace.controls import no_fitting

    x, concepts, _ = synthetic(n=50)
    control = no_fitting(x, WORDS, concepts)
    z = control.space.centre(x)
    assert np.allclose(control.encode(x), np.maximum(z @ concept_directions(concepts).T, 0.0))
    assert control.method == "no fitting"
    # It is GRACE before any step: one Adam step moves the map away from it.
    one = fit_grace(x, WORDS, concepts, steps=1)
    assert not np.allclose(one.weight, control.weight) and np.abs(one.weight - control.weight).max() < 0.02


def test_shuffled_labels_keep_every_code_and_fail_the_named_measure():
    """The control that must fail: the same map under permuted names. Geometry cannot see it, names can."""
    from core.grace.controls import shuffled_labels

    x, concepts, _ = synthetic()
    new_x, _, attributes = synthetic(seed=1)
    grace = fit_grace(x, WORDS, concepts, steps=150)
    control = shuffled_labels(grace, seed=4)
    assert control.method == "shuffled labels" and sorted(control.vocabulary) == sorted(WORDS)
    assert control.vocabulary != WORDS and control.vocabulary == shuffled_labels(grace, seed=4).vocabulary
    codes = grace.encode(new_x)
    assert np.array_equal(control.encode(new_x), codes)                       # identical codes
    assert triplet_agreement(control.encode(new_x), attributes) == triplet_agreement(codes, attributes)
    named = [np.mean(list(concept_attribute_agreement(d.encode(new_x), d.vocabulary, attributes).values()))
             for d in (grace, control)]
    assert named[0] > 0.95 and named[1] < 0.5, named


def test_t_interval_matches_scipy_and_replicate_seeds_are_derived():
    from scipy import stats

    from core.common.seeding import derive_seed
    from core.grace.compare import replicate_seeds, t_interval

    v = [0.1, 0.3, 0.2, 0.5]
    low, high = stats.t.interval(0.95, len(v) - 1, loc=np.mean(v), scale=stats.sem(v))
    assert t_interval(v) == pytest.approx([low, high])
    seeds = replicate_seeds(9, 3)
    assert seeds[2]["fit"] == derive_seed(9, "fit", 2) and len({s["test"] for s in seeds}) == 3
    assert seeds[0]["fit"] != seeds[0]["test"] and replicate_seeds(9, 2) == seeds[:2]


@pytest.mark.parametrize("fit, kwargs, field", [
    (fit_sae, {"steps": -5}, "steps"), (fit_sae, {"lr": 0.0}, "lr"), (fit_sae, {"k_active": 0}, "k_active"),
    (fit_sae, {"seed": -1}, "seed"), (fit_grace, {"lr": -1e-3}, "lr"), (fit_grace, {"lr": float("nan")}, "lr"),
    (fit_grace, {"seed": 1.5}, "seed"), (fit_grace, {"batch": 1}, "batch"), (fit_grace, {"progress": 3}, "progress"),
    (fit_splice, {"l1": -0.1}, "l1"), (fit_textspan, {"n_directions": 0}, "n_directions")])
def test_every_fitting_function_refuses_bad_settings_before_fitting(fit, kwargs, field):
    """The field is named in the house format, and the inputs are left as they were (nothing is fitted)."""
    x, concepts, _ = synthetic(n=20)
    before = x.copy(), concepts.copy()
    torch_state = torch.random.get_rng_state()
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
        fit(x, WORDS, concepts, **kwargs)
    assert np.array_equal(x, before[0]) and np.array_equal(concepts, before[1])
    assert torch.equal(torch.random.get_rng_state(), torch_state)       # no torch_seeded block was entered


@pytest.mark.parametrize("fit", [fit_splice, fit_textspan, fit_sae])
def test_baselines_refuse_a_vocabulary_of_the_wrong_length(fit):
    x, concepts, _ = synthetic(n=20)
    with pytest.raises(ValueError, match="^vocabulary: 9 words for 10 concept embeddings; allowed"):
        fit(x, WORDS[:-1], concepts)


def test_train_clip_checks_its_settings_before_building_a_model():
    from core.grace.train_clip import train_clip

    for kwargs, field in (({"steps": 0}, "steps"), ({"lr": 0.0}, "lr"), ({"batch": 1}, "batch"),
                          ({"seed": -3}, "seed")):
        with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
            train_clip(**kwargs)


def test_ship_command_line_refuses_an_unknown_part():
    from core.grace.ship import main

    with pytest.raises(SystemExit, match="usage: python -m core.grace.ship"):
        main(["checkpoints"])
    with pytest.raises(SystemExit, match="^steps: 'many' is not an integer; allowed"):
        main(["clip", "many"])
