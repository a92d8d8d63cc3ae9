"""What the admin page watches during a study, computed from ``StudyStore.rows`` (one dict per response).

- progress per population (participants, completions, failed checks, ratings);
- ratings per item and population, for the balance check;
- data quality: attention-check failures per participant, response times;
- inter-rater reliability per population: Krippendorff's alpha, ordinal (the ``krippendorff``
  package), over the participant x problem matrix with missing cells, which suits a design where
  each participant rates only some problems;
- rating distributions per item (counts of 1..7).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def frame(rows: list[dict]) -> pd.DataFrame:
    columns = ["participant_id", "population", "participant_status", "item_id", "kind", "interestingness",
               "difficulty", "attention_passed", "response_ms"]
    return pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame(columns=columns)


def progress(participants: list[dict], rows: list[dict]) -> pd.DataFrame:
    """Per population: participants, completed, "failed a check" (at least one attention check failed, the
    same count as the admin page's metric), "failed every check" (given the failed-checks code), in
    progress, "resumed" (participants whose link was opened again from a new browser session: Prolific
    returns, or someone who typed another's id) and ratings."""
    people = pd.DataFrame(participants, columns=["participant_id", "population", "status", "resumes"])
    people["resumes"] = people["resumes"].fillna(0)
    ratings = frame(rows)
    failed = frame(rows)
    failed = set(failed[(failed.kind == "attention") & (failed.attention_passed == False)].participant_id)  # noqa: E712
    ratings = ratings[ratings.kind == "problem"]
    out = []
    for population in sorted(set(people.population) | set(ratings.population)):
        group = people[people.population == population]
        out.append({"population": population, "participants": len(group),
                    "completed": int((group.status == "completed").sum()),
                    "failed a check": int(group.participant_id.isin(failed).sum()),
                    "failed every check": int((group.status == "failed_checks").sum()),
                    "in progress": int((group.status == "active").sum()),
                    "resumed": int((group.resumes > 0).sum()),
                    "ratings": int((ratings.population == population).sum())})
    return pd.DataFrame(out, columns=PROGRESS_COLUMNS)


PROGRESS_COLUMNS = ["population", "participants", "completed", "failed a check", "failed every check", "in progress",
                    "resumed", "ratings"]


def ratings_per_item(rows: list[dict]) -> pd.DataFrame:
    """Items x populations: number of ratings (problems only)."""
    data = frame(rows)
    data = data[data.kind == "problem"]
    return data.groupby(["item_id", "population"]).size().unstack(fill_value=0)


def attention_failures(rows: list[dict]) -> pd.DataFrame:
    data = frame(rows)
    data = data[data.kind == "attention"]
    grouped = data.groupby(["participant_id", "population"])["attention_passed"]
    return grouped.agg(checks="size", failed=lambda x: int((~x.astype(bool)).sum())).reset_index()


def response_seconds(rows: list[dict]) -> pd.Series:
    data = frame(rows)
    return data.loc[data.kind == "problem", "response_ms"].dropna().astype(float) / 1000


def reliability_matrix(rows: list[dict], population: str, field: str = "interestingness") -> np.ndarray:
    """Participants x problems, NaN where a participant did not rate a problem."""
    data = frame(rows)
    data = data[(data.kind == "problem") & (data.population == population)]
    if data.empty:
        return np.zeros((0, 0))
    return data.pivot_table(index="participant_id", columns="item_id", values=field, aggfunc="first").to_numpy(float)


def krippendorff_alpha(rows: list[dict], population: str, field: str = "interestingness") -> float:
    """Ordinal Krippendorff's alpha over ``population``'s ratings; NaN until two raters share an item."""
    import krippendorff

    matrix = reliability_matrix(rows, population, field)
    shared = (np.isfinite(matrix).sum(0) >= 2).sum() if matrix.size else 0
    values = np.unique(matrix[np.isfinite(matrix)]) if matrix.size else []
    if shared == 0 or len(values) < 2:
        return float("nan")
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal",
                                    value_domain=list(range(1, 8))))


def distributions(rows: list[dict], field: str = "interestingness", population: str | None = None) -> pd.DataFrame:
    """Items x ratings 1..7: counts (problems only; one population if given)."""
    data = frame(rows)
    data = data[data.kind == "problem"]
    if population is not None:
        data = data[data.population == population]
    table = data.groupby(["item_id", field]).size().unstack(fill_value=0)
    return table.reindex(columns=range(1, 8), fill_value=0)
