"""The paper's explanation claims on small seeded runs (the full figures are in bench/tikhonov_gnn.py)."""

import pytest

from core.tikhonov_gnn import explain, explanation_auroc, load_dataset, recommended_config, train

pytestmark = pytest.mark.claim


def test_q_separates_planted_motif_nodes_from_base_nodes():
    # Seed 0 for data and training. Not every draw gets there: bench/tikhonov_gnn.py reports the
    # AUROC over several seeds, failures included.
    dataset = load_dataset("motifs", seed=0)
    result = train(recommended_config("motifs"), dataset, seed=0)
    test_graphs = [dataset.graphs[i] for i in result.test_index]
    assert result.final_test_accuracy >= 0.95
    assert explanation_auroc(result.model, test_graphs) >= 0.85


@pytest.mark.parametrize("name, kind", [("sbm_homophilic", "low-pass"), ("sbm_heterophilic", "high-pass")])
def test_learned_p_is_low_pass_under_homophily_and_high_pass_under_heterophily(name, kind):
    dataset = load_dataset(name, seed=2)
    result = train(recommended_config(name), dataset, seed=2)
    assert result.final_test_accuracy >= 0.85
    assert explain(result.model, dataset.graphs[result.test_index[0]]).kind == kind
