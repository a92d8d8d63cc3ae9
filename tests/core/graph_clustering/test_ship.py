"""The shipped first view agrees with a recomputation of its torch-free parts."""

import numpy as np

from core.common.seeding import derive_seed
from core.graph_clustering import cluster_accuracy, kmeans_features, match_labels, make_domain, nmi, score_clustering, spectral_labels
from core.graph_clustering.ship import SEED, SOURCE, TARGET, shipped_run


def test_the_shipped_run_recomputes():
    run = shipped_run()
    assert run is not None and run.completed and (run.source, run.target, run.seed) == (SOURCE, TARGET, SEED)
    target = make_domain(TARGET, derive_seed(SEED, "domain", "target"))
    assert np.array_equal(run.target_truth, target.labels)
    i = {m: k for k, m in enumerate(run.methods)}
    assert abs(run.nmi[i["kmeans"]] - nmi(target.labels, kmeans_features(target, 24, derive_seed(SEED, "kmeans")))) < 1e-12
    assert abs(run.nmi[i["spectral"]]
               - nmi(target.labels, spectral_labels(target, derive_seed(SEED, "spectral")))) < 1e-12
    assert np.array_equal(run.gfm_matched, match_labels(target.labels, run.gfm_labels))
    assert cluster_accuracy(target.labels, run.gfm_labels) == np.mean(run.gfm_matched == target.labels)
    s = score_clustering(target.labels, run.gfm_labels)
    assert abs(run.acc[i["gfm_uc"]] - s.acc) < 1e-12 and abs(run.ari[i["gfm_uc"]] - s.ari) < 1e-12
