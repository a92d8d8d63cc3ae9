"""The paper's filter claim on small seeded runs (the full figures, over seeds, are in bench/tikhonov_gnn.py)."""

import pytest

from core.common.seeding import torch_seeded
from core.tikhonov_gnn import explain, load_dataset, recommended_config, train
from core.tikhonov_gnn.models import build_model

pytestmark = pytest.mark.claim


# No claim test for "q is a faithful explanation": it does not reproduce. bench/tikhonov_gnn.py measures
# the q-AUROC over 5 seeds (planted_feature 0.85, 0.99, 0.97, 0.49, 0.48, the last at 100 % accuracy;
# motifs at chance) and the ledger says "not reproduced" / "partly" with those figures. A seeded test
# that passed would pick one of the seeds that work.


@pytest.mark.parametrize("name, kind", [("sbm_homophilic", "low-pass"), ("sbm_heterophilic", "high-pass")])
def test_learned_p_is_low_pass_under_homophily_and_high_pass_under_heterophily(name, kind):
    dataset = load_dataset(name, seed=2)
    result = train(recommended_config(name), dataset, seed=2)
    assert result.final_test_accuracy >= 0.85
    assert explain(result.model, dataset.graphs[result.test_index[0]]).kind == kind
    # The control: at initialisation p is flat (theta = 1), so its shape says nothing yet.
    with torch_seeded(2):
        untrained = build_model("tikhonov", dataset.n_features, 2, "node", recommended_config(name)).eval()
    assert explain(untrained, dataset.graphs[result.test_index[0]]).kind == "all-pass"
