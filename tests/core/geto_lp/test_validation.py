"""Bad inputs are refused with the field and the allowed range named, and nothing is modified."""

import numpy as np
import pytest

import core.geto_lp as geto
from core.geto_lp import barycenter, compare_solvers, parse_cost


def good():
    rng = np.random.default_rng(0)
    return rng.random((3, 5, 4))


@pytest.mark.parametrize("mutate, field, words", [
    (lambda h: h.__setitem__((1, 2, 3), -0.5), "histograms", "negative mass"),
    (lambda h: h.__setitem__(2, 0.0), "histograms", "all zero"),
    (lambda h: h.__setitem__((0, 0, 0), np.nan), "histograms", "NaN"),
])
def test_bad_masses_are_refused_and_the_input_is_untouched(mutate, field, words):
    hist = good()
    mutate(hist)
    before = hist.copy()
    with pytest.raises(ValueError, match=f"^{field}: .*{words}.*; allowed "):
        barycenter(hist)
    np.testing.assert_array_equal(hist, before)


def test_mismatched_shapes_name_both():
    with pytest.raises(ValueError, match=r"^histograms: histogram 1 has shape \(5, 5\) but histogram 0 has \(5, 4\); "
                                         r"allowed one common grid shape"):
        barycenter([np.ones((5, 4)), np.ones((5, 5))])


def test_a_good_call_leaves_its_inputs_alone():
    hist, weights = good(), np.array([2.0, 1.0, 1.0])
    hist_before, weights_before = hist.copy(), weights.copy()
    result = barycenter(hist, weights)
    np.testing.assert_array_equal(hist, hist_before)
    np.testing.assert_array_equal(weights, weights_before)
    assert result.weights == pytest.approx([0.5, 0.25, 0.25])


@pytest.mark.parametrize("cost", ["euclidean", "linf", "chebyshev"])
def test_non_separable_costs_are_refused_with_the_reason(cost):
    with pytest.raises(ValueError, match=rf"^cost: '{cost}' is not separable .*; allowed 'sqeuclidean', 'l1', "):
        barycenter(good(), cost=cost)


@pytest.mark.parametrize("cost, words", [("wasserstein", "not a known cost"), ("lp:", "no number"),
                                         ("lp:0", "out of range"), ("lp:-1", "out of range"), (2, "expected a name")])
def test_unknown_costs_are_refused(cost, words):
    with pytest.raises(ValueError, match=f"^cost: .*{words}.*; allowed "):
        parse_cost(cost)


@pytest.mark.parametrize("kwargs, field", [
    ({"weights": [1.0, 1.0]}, "weights"),
    ({"weights": [1.0, -1.0, 1.0]}, "weights"),
    ({"weights": [0.0, 0.0, 0.0]}, "weights"),
    ({"spacing": 0.0}, "spacing"),
    ({"spacing": (1.0, 2.0, 3.0)}, "spacing"),
    ({"solver": "simplex"}, "solver"),
])
def test_other_fields_are_named(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
        barycenter(good(), **kwargs)


def test_shapes_that_are_not_histograms_are_refused():
    with pytest.raises(ValueError, match=r"^histograms: shape \(7,\); allowed an array of shape \(M, n_1"):
        barycenter(np.ones(7))
    with pytest.raises(ValueError, match=r"^histograms: 3 histograms on a 200x200 grid need .*; allowed at most"):
        barycenter(np.ones((3, 200, 200)))


def test_the_comparison_validates_too():
    with pytest.raises(ValueError, match="^reg: "):
        compare_solvers(good(), reg=0.0)
    with pytest.raises(ValueError, match="^method: "):
        compare_solvers(good(), methods=["cplex"])


@pytest.mark.parametrize("call, field", [
    (lambda: geto.count_variables(0, (4, 4)), "m"),
    (lambda: geto.count_variables(2, (4, -1)), "shape"),
    (lambda: geto.count_classical_variables(2, "ab"), "shape"),
    (lambda: geto.cost_matrix((0, 3)), "shape"),
    (lambda: geto.flow_paths(np.eye(4), (2, 2), top=0), "top"),
    (lambda: geto.exact_objective(good(), np.ones(7)), "b"),
    (lambda: geto.run_method("geto_lp", good(), dense_max_points=-1),
     "dense_max_points"),
    (lambda: geto.run_method("geto_lp", good(), solver="simplex"), "solver"),
    (lambda: geto.run_baselines(good(), optimum=-1.0), "optimum"),
    (lambda: geto.compare_solvers(good(), pot_max_variables=-5), "pot_max_variables"),
    (lambda: geto.solve_lp(np.ones(3), np.ones((1, 2)), np.ones(1)), "A"),
    (lambda: geto.transfer_palette(np.zeros((2, 2, 3)), np.eye(9), 2), "plan"),
    (lambda: geto.mass_level(np.array([1.0, -2.0]), 0.5), "volume"),
    (lambda: geto.isosurface(np.ones((3, 3)), 0.5), "volume"),
])
def test_public_entry_points_name_the_bad_field(call, field):
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
        call()


def test_a_refused_call_changes_nothing():
    from core.geto_lp import exact_objective

    hist, b = good(), np.ones(7)
    before = hist.copy(), b.copy()
    with pytest.raises(ValueError, match="^b: "):
        exact_objective(hist, b)
    np.testing.assert_array_equal(hist, before[0])
    np.testing.assert_array_equal(b, before[1])
