"""What the page's live merge panel returns: the merge table and, for two adapters, the alpha landscape."""

from __future__ import annotations

from dataclasses import dataclass

from core.common.config import check_range
from core.common.seeding import check_seed, derive_seed
from core.malora.experiment import Landscape, MergeComparison, MergeConfig, compare_merges, landscape


@dataclass
class MergeView:
    """What the page's live merge run returns: the merge table and, for two adapters, the alpha landscape.

    Attributes
    ----------
    comparison : MergeComparison
        Every method's merge (:func:`compare_merges`).
    landscape : Landscape or None
        The union-margin landscape over (alpha_1, alpha_2); None unless two adapters were trained.
    """

    comparison: MergeComparison
    landscape: Landscape | None


def merge_view(config: MergeConfig | None = None, seed: int = 0, grid: int = 61, progress=None) -> MergeView:
    """:func:`compare_merges` and, with two fine-tuning tasks, the union-margin landscape over alpha.

    The landscape uses the same tasks (the same child seed) as the comparison.

    Parameters
    ----------
    config : MergeConfig, optional
        The experiment (default ``MergeConfig()``).
    seed : int
        As in :func:`compare_merges`.
    grid : int
        Landscape grid points per axis, 5..201.
    progress : callable, optional
        Passed to :func:`compare_merges`; False stops (no landscape then).

    Returns
    -------
    MergeView
        The comparison and the landscape (None unless two adapters finished).

    Examples
    --------
    >>> view = merge_view(MergeConfig(steps=1, grid=5), seed=0, grid=5)
    >>> view.comparison.done, view.landscape.margin.shape
    (2, (5, 5))
    """
    config = config or MergeConfig()
    seed = check_seed(seed)
    grid = check_range("grid", grid, 5, 201, integer=True)
    result = compare_merges(config, seed, progress=progress)
    land = None
    if result.done == 2 and len(result.task_names) == 3:
        tasks = config.tasks(derive_seed(seed, "tasks"))
        land = landscape(result.base, result.deltas, tasks.X_train, tasks.y_train, result.alpha_star, grid=grid)
    return MergeView(result, land)
