"""The paper's filter claim on small seeded runs (the full figures, over seeds, are in bench/tikhonov_gnn.py)."""

import pytest

from core.common.seeding import torch_seeded
from core.tikhonov_gnn import explain, load_dataset, recommended_config, train
from core.tikhonov_gnn.models import build_model

pytestmark = pytest.mark.claim


# No seeded claim test for "q is a faithful explanation": it reproduces only in part, judged in
# bench/tikhonov_gnn.py over 10 seeds a dataset among the runs that trained (section explanations_selected; the
# ledger says "partly"), and test_bench_results.py checks that the verdict follows its rule from the stored per-seed
# numbers. A seeded test that passed would pick one of the seeds that work.


@pytest.mark.parametrize("name, kind", [("sbm_homophilic", "low-pass"), ("sbm_heterophilic", "high-pass")])
def test_learned_p_is_low_pass_under_homophily_and_high_pass_under_heterophily(name, kind):
    # Three seeds, a majority required: one seeded fit is not robust to the machine (seed 2 on heterophily
    # reached 0.98 where the assets were made and 0.65 on an AVX-512 EPYC, the same code and versions).
    outcomes = []
    for seed in (2, 3, 4):
        dataset = load_dataset(name, seed=seed)
        result = train(recommended_config(name), dataset, seed=seed)
        outcomes.append((result.final_test_accuracy,
                         explain(result.model, dataset.graphs[result.test_index[0]]).kind))
    assert sum(accuracy >= 0.85 and shape == kind for accuracy, shape in outcomes) >= 2, outcomes
    # The control: at initialisation p is flat (theta = 1), so its shape says nothing yet.
    with torch_seeded(2):
        untrained = build_model("tikhonov", dataset.n_features, 2, "node", recommended_config(name)).eval()
    assert explain(untrained, dataset.graphs[result.test_index[0]]).kind == "all-pass"
