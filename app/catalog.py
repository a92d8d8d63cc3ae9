"""The nineteen systems Paperlab implements: what each is, where it sits, and its page if built.

``page`` names the module ``pages.<key>`` whose ``render()`` draws the system, or is None while the
system is being built; the home page shows those as "in progress", with their claim and no link.
Adding a system: write ``core/<key>/`` and ``pages/<key>.py``, then set ``page="pages.<key>"`` here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class System:
    key: str
    title: str
    theme: str
    claim: str
    page: str | None = None
    warm: tuple[str, ...] = ()  # heavy modules the page needs, imported in the background at start
    # Core functions that can take more than about a second: a page may hand them to live_panel
    # (progress and Stop) but never call them itself (tests/test_long_calls.py scans the pages).
    long: tuple[str, ...] = ()

    @property
    def built(self) -> bool:
        return self.page is not None


THEMES = (
    "Language models and reasoning",
    "Generative models and control",
    "Learning theory and optimisation",
    "Graphs",
    "Vision-language and representation",
    "Decision making and RL",
    "Quantum",
    "Human study",
)

SYSTEMS = (
    System("looped_lm", "Looped reasoning LMs", THEMES[0],
           "Each layer of a looped block converges to its own fixed point, so the block traces a cycle; "
           "attention settles as it does, and the feedforward stages of inference repeat every loop.",
           long=("train", "train_and_view", "accuracy_by_loops", "accuracy_by_hops", "loop_view", "stage_view",
                 "causal_lm_profile", "load_causal_lm", "profile_causal_lm"),
           page="pages.looped_lm", warm=("torch", "core.looped_lm")),
    System("distributional_steering", "Distributional steering of diffusion", THEMES[1],
           "Weighted interacting particles sample a mean-field tilted measure, steering a diffusion model "
           "with distribution-level rewards such as calibration or diversity.",
           long=("compare", "steer_foldedness", "train_denoiser", "maxent_reweight"),
           page="pages.distributional_steering", warm=("scipy.optimize", "scipy.stats", "core.distributional_steering")),
    System("interestingness", "Interestingness of math problems", THEMES[7],
           "LLMs broadly agree with humans on which math problems are interesting, yet miss the spread "
           "of human judgments and the reasons people give.",
           long=("generate", "run_rater"),
           page="pages.interestingness", warm=("sqlalchemy", "alembic", "krippendorff",
                                                     "core.interestingness.store")),
    System("malora", "Margin-based LoRA merging", THEMES[2],
           "In an intermediate regularisation regime the optimal LoRA adapter is the max-margin solution; "
           "margin-balancing mixing coefficients give a training-free merge (MaLoRA).",
           long=("merge_view", "compare_merges", "lambda_sweep", "train_adapter", "peft_merge", "merged_delta",
                 "digits_tasks", "write_views"),
           page="pages.malora", warm=("torch", "peft", "sklearn.svm", "sklearn.neural_network", "core.malora")),
    System("class_il", "Task confusion in class-incremental learning", THEMES[2],
           "Pretraining exponentially attenuates task confusion: the TC gap of a CF-optimal prototype learner "
           r"is bounded by $\exp(-\gamma_{\min}/8)$, with $\gamma_{\min}$ the worst Mahalanobis margin.",
           long=("configuration_sweep", "evaluate_configuration", "synthetic_sweep", "ecf_curve", "drift_experiment",
                 "compute_view", "write_view", "write_embeddings", "embed_sentences"),
           page="pages.class_il", warm=("sklearn.neural_network", "sklearn.covariance", "sklearn.linear_model",
                                        "sklearn.feature_extraction.text", "sklearn.datasets", "scipy.stats",
                                        "core.class_il")),
    System("lvqmark", "Local VQ-VAE watermarks for time series", THEMES[1],
           "Detection in which each recovered unit depends only on a local window keeps the null "
           "distribution fixed under post-editing attacks.",
           long=("tokenizer_run", "detection_run", "train_tokenizer", "train_prior", "train_robust", "detect",
                 "quality_scores", "write_assets", "view_arrays", "train_system"),
           page="pages.lvqmark", warm=("torch", "sklearn.neural_network", "core.lvqmark.training",
                                       "core.lvqmark.store")),
    System("quantum_ng", "Locality-aware quantum natural gradient", THEMES[6],
           "A truncated-Pauli, support-masked QFIM surrogate from one classical-shadow dataset converges "
           "better per shot than SGD, Adam, block-diagonal QNG and RNG.",
           long=("run_vqe", "metric_view", "exact_metric", "truncation_curve", "acquire_shadow"),
           page="pages.quantum_ng", warm=("pennylane", "pennylane_lightning.lightning_qubit", "scipy.sparse.linalg",
                                          "core.quantum_ng", "core.quantum_ng.ship")),
    System("mcr2", "MCR² error bound and linear convergence", THEMES[2],
           "The MCR² objective satisfies an error bound near its local maximisers, so first-order "
           "methods converge linearly there.",
           long=("ascend", "train_digits"),
           page="pages.mcr2", warm=("core.mcr2", "core.mcr2.ship", "torch", "sklearn.linear_model",
                                    "sklearn.datasets")),
    System("robust_decisions", "Robust decisions around predictions", THEMES[5],
           "Following a prediction can cost a constant excess loss however small its RMSE; acting against "
           r"the worst case in an $\varepsilon$-ball gives $O(\eta^{2/3})$ loss.",
           long=("rate_experiment",),
           page="pages.robust_decisions", warm=("sklearn.linear_model", "sklearn.cluster", "core.robust_decisions")),
    System("latent_world_action", "Latent world-action policy", THEMES[5],
           "Latent queries between perception and action, aligned with a training-only posterior branch that "
           "sees future frames, teach a policy world dynamics without generating pixels.",
           long=("train_policy", "train_live", "evaluate_policy", "compute_latents", "policy_view", "latent_picture",
                 "ms_per_action", "make_dataset", "rollout", "episodes_view"),
           page="pages.latent_world_action", warm=("torch", "sklearn.linear_model", "sklearn.decomposition",
                                                   "core.latent_world_action", "core.latent_world_action.model")),
    System("kernel_conformal", "Multivariate kernel conformal score", THEMES[2],
           "A kernel score shaped like a GP posterior variance gives multivariate conformal regions that "
           "follow the residuals' geometry, with exact coverage.",
           page="pages.kernel_conformal", long=("region_view", "sweep", "compare_scores", "coverage_check"),
           warm=("sklearn.neighbors", "sklearn.linear_model", "scipy.linalg", "core.kernel_conformal")),
    System("uncertainty_shapley", "Shapley values for multivariate uncertainty", THEMES[2],
           "A hierarchy of entropy Shapley games, from marginal to joint entropy, isolates how each feature "
           "shifts the dependence between output components (conditional total correlation).",
           long=("attribution_view", "attribute", "estimator_error", "train_and_attribute", "train_forecaster",
                 "exact_shapley", "permutation_shapley", "load_model"),
           page="pages.uncertainty_shapley", warm=("scipy.spatial", "scipy.special",
                                                   "statsmodels.datasets.macrodata", "core.uncertainty_shapley")),
    System("driving_world_model", "Hierarchical driving world model", THEMES[1],
           "A coarse long-horizon predictor conditions a detailed generator; diffusion-forcing pretraining gives "
           "richer representations, teacher-forcing fine-tuning stabler rollouts.",
           long=("finetune_and_evaluate", "evaluate", "train", "compute_view", "write_view", "make_dataset",
                 "ship_checkpoints", "rollout", "hierarchical_rollout", "counterfactual_truth"),
           page="pages.driving_world_model", warm=("torch", "sklearn.linear_model", "scipy.stats",
                                                   "core.driving_world_model")),
    System("hebbian_memory", "Hebbian ordinal geometry in working memory", THEMES[4],
           "A meta-trained RNN with fast Hebbian plasticity folds ordinal position into an orthogonal 2-D code "
           "of chunk rank and within-chunk rank, as seen in neural recordings.",
           long=("transfer_run", "meta_train", "ordinal_geometry", "evaluate_recall", "train_predictor",
                 "write_assets", "train_networks"),
           page="pages.hebbian_memory", warm=("torch", "sklearn.linear_model", "core.hebbian_memory")),
    System("geto_lp", "GETO-LP Wasserstein barycenters", THEMES[2],
           r"An exact LP for fixed-support barycenters on $d$-dimensional grids with $O(dMN^{1+1/d})$ "
           r"variables instead of $O(MN^2)$.",
           long=("solve_lp", "barycenter", "run_baselines"),
           page="pages.geto_lp", warm=("ot", "scipy.optimize", "highspy", "sklearn.datasets", "pyvista",
                                       "core.geto_lp")),
    System("graph_clustering", "Graph foundation model for clustering", THEMES[3],
           "A label-free graph foundation model pretrains unified subgraph prototypes on a source domain and "
           "clusters a target graph after a short distribution-aware fine-tune.",
           long=("transfer_run", "pretrain", "adapt", "from_scratch", "cluster_graphs", "dmon_labels", "daegc_labels"),
           page="pages.graph_clustering", warm=("torch", "torch_geometric", "torch_geometric.nn", "networkx",
                                                "sklearn.cluster", "core.graph_clustering",
                                                "core.graph_clustering.network")),
    System("occupancy_irl", "Occupancy-space reward updates for IRL", THEMES[5],
           "Preconditioning the IRL dual gradient with the Fisher information along the occupancy geodesic "
           "turns the reward update into a convex interpolation towards a target reward.",
           long=("run_irl", "convergence_study", "preconditioned_step", "path_fisher"),
           page="pages.occupancy_irl", warm=("scipy.special", "plotly.subplots", "core.occupancy_irl")),
    System("tikhonov_gnn", "Interpretable Tikhonov GNN layer", THEMES[3],
           r"$R = (p(L)+Q)^{-1}Q$ solves a graph Tikhonov problem exactly; the learned node scores $q$ and "
           r"polynomial $p$ are the explanation.",
           long=("train", "cross_validate"),
           page="pages.tikhonov_gnn", warm=("torch", "networkx", "sklearn.model_selection", "core.tikhonov_gnn")),
    System("grace", "GRACE concept decompositions", THEMES[4],
           "Concepts learned globally over the feature space, preserving sample geometry, decompose "
           "vision-language embeddings the way people describe them.",
           long=("refit_curve", "fit_grace", "fit_splice", "fit_sae", "fit_textspan", "compare", "embed_images"),
           page="pages.grace", warm=("torch", "sklearn.linear_model", "sklearn.manifold",
                                     "sklearn.discriminant_analysis", "core.grace.shipped", "core.grace.refit")),
)

BY_KEY = {system.key: system for system in SYSTEMS}


@dataclass(frozen=True)
class ExtraPage:
    """A system's second page, ``pages/<key>.py``, listed in the navigation after the system's own page."""

    key: str  # its module under pages/ and its URL path
    system: str  # the catalog key of the system it belongs to
    title: str
    participant: bool = False  # what a participant's link (``?study=...``) opens, with no navigation


EXTRAS = (
    ExtraPage("interestingness_analysis", "interestingness", "Interestingness: humans and LLMs"),
    ExtraPage("interestingness_study", "interestingness", "Interestingness study (participant view)",
              participant=True),
)
# Pages beyond each system's own: page module -> the system it belongs to (app/shell.py builds and routes them).
EXTRA_PAGES = {extra.key: extra.system for extra in EXTRAS}


def by_theme() -> dict[str, list[System]]:
    """Systems grouped by theme, themes in their fixed order, empty themes left out."""
    groups = {theme: [s for s in SYSTEMS if s.theme == theme] for theme in THEMES}
    return {theme: systems for theme, systems in groups.items() if systems}
