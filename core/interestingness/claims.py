"""The interestingness paper's headline claims, checked by ``bench/interestingness.py`` on a real study."""

from core.common.claims import Claim
from core.common.decisions import Every, InBand, Interval, Some, Threshold
from core.common.rules import Check, Diagnosis, Rule

CLAIMS = (
    Claim("broad_agreement",
          "Many LLMs broadly agree with human notions of interestingness.",
          "Spearman correlation of an LLM rater's mean ratings with each population's mean ratings, with a "
          "bootstrap 95% interval, on a real study's problems.",
          "The human split-half reliability ceiling; a rater with shuffled problem labels as the control."),
    Claim("misses_distribution",
          "LLMs largely fail to match the distribution of human judgments.",
          "Mean per-problem Wasserstein-1 between the LLM's rating distribution and each population's, against "
          "the distance between two random halves of the same population.",
          "Human split halves (the floor an exact match would reach)."),
    Claim("weak_rationales",
          "LLMs align only weakly with why humans find problems interesting.",
          "Correlation of the LLM's rationale probabilities with the rationales participants selected.",
          "Human split-half rationale agreement."),
    Claim("generates_engaging",
          "After filtering for validity, LLMs generate problems that people find engaging.",
          "Mean human interestingness of kept generated problems against the bank's problems in the same study.",
          "The study's own bank problems rated by the same participants."),
)

WEAK = 0.3   # "weak" rationale alignment is ours: a mean Spearman below this and below the human split halves


def _cells(r):
    """Every (rater, population) pair's numbers of a study that can test the claims; None (not measured) for a dry
    run with simulated participants, no study with real participants, fewer than two ready populations, or no LLM
    rater run."""
    if r.get("simulated_included") or r.get("study_id") is None or len(r["ready_populations"]) < 2 or not r["raters"]:
        return None
    return [m for per in r["raters"].values() for m in per.values()]


def _share(hits, total):
    return None if total == 0 else hits / total


def _agreement_or_failed_control(r):
    """Each pair's Spearman interval, each shuffled control's interval and its mirror (−high, −low): one wholly above
    0 gives the bench's partly (a pair agrees, or the shuffled control is away from 0)."""
    cells = _cells(r)
    return [tuple(m["spearman_ci"]) for m in cells] + [tuple(m["shuffled_spearman_ci"]) for m in cells] + [
        (-m["shuffled_spearman_ci"][1], -m["shuffled_spearman_ci"][0]) for m in cells]


def _over_floor(r):
    """Each pair's W1 and its 95% interval, less the population's sampling floor."""
    return [tuple(v - m["sampling_floor_w1"] for v in (m["w1"], *m["w1_ci"])) for m in _cells(r)]


def _weakness(r):
    """Each rated pair's mean rationale Spearman less the lower of WEAK and the human split-half agreement."""
    return [m["rationale"]["mean"] - min(WEAK, m["split_half_rationale"]) for m in _cells(r)
            if m["rationale"] is not None]


def _generation(r):
    return None if r.get("simulated_included") else r["generation"]


_UNAVAILABLE = Diagnosis("unavailable", "The claims are about people: the study store holds no study with real "
                         "participants (python bench/interestingness.py: 0 real ratings), and the shipped demo "
                         "study's raters and LLM are simulated, so it cannot test a claim about people.")

RULES = {
    "broad_agreement": Rule(
        checks=(Check("agreement_or_failed_control", "claim", "the bench's partly: a rater × population pair's "
                      "Spearman 95% interval wholly above 0, or the shuffled control's interval away from 0 (a "
                      "failed control gave partly)", _agreement_or_failed_control, Some(Interval(0.0, "above"))),
                Check("majority", "part", "share of rater × population pairs whose Spearman 95% interval is wholly "
                      "above 0 (\"many LLMs\": at least half)",
                      lambda r: _share(sum(m["spearman_ci"][0] > 0 for m in _cells(r)), len(_cells(r))),
                      Threshold(0.5, "above", strict=False)),
                Check("shuffled_above", "null", "the rater with its ratings shuffled across problems: its Spearman "
                      "95% interval, each pair, which must contain 0", lambda r: [tuple(m["shuffled_spearman_ci"])
                                                                                  for m in _cells(r)],
                      Some(Interval(0.0, "above"))),
                Check("shuffled_below", "null", "the same shuffled control's interval, which must not lie wholly "
                      "below 0 either", lambda r: [tuple(m["shuffled_spearman_ci"]) for m in _cells(r)],
                      Some(Interval(0.0, "below")))),
        diagnosis=_UNAVAILABLE),
    "misses_distribution": Rule(
        checks=(Check("above_floor", "claim", "mean per-problem W1 between the LLM's and the population's rating "
                      "distributions, 95% interval, less the sampling floor, each rater × population pair",
                      _over_floor, Some(Interval(0.0, "above"))),
                Check("majority", "part", "share of pairs whose W1 interval lies wholly above the sampling floor "
                      "(at least half)", lambda r: _share(sum(t[1] > 0 for t in _over_floor(r)), len(_cells(r))),
                      Threshold(0.5, "above", strict=False)),
                Check("floor", "reference", "the sampling floor: W1 of each population's distribution against a "
                      "bootstrap resample of its own ratings, the distance an exact match would still show",
                      lambda r: [m["sampling_floor_w1"] for m in _cells(r)], Every(Threshold(0.0, "above")))),
        diagnosis=_UNAVAILABLE),
    "weak_rationales": Rule(
        checks=(Check("weak", "claim", f"each rated pair's mean Spearman of the LLM's rationale probabilities with "
                      f"the participants' rationales, less the lower of {WEAK} and the human split-half agreement",
                      _weakness, Some(Threshold(0.0))),
                Check("majority", "part", "share of rated pairs that are weak (at least half)",
                      lambda r: _share(sum(w < 0 for w in _weakness(r)), len(_weakness(r))),
                      Threshold(0.5, "above", strict=False)),
                Check("split_halves", "reference", "human split-half rationale agreement, each rated pair's "
                      "population", lambda r: [m["split_half_rationale"] for m in _cells(r)
                                               if m["rationale"] is not None], Every(Threshold(0.0, "above")))),
        diagnosis=_UNAVAILABLE),
    "generates_engaging": Rule(
        checks=(Check("not_worse", "claim", "bootstrap 95% interval of the kept generated problems' mean "
                      "interestingness less the bank's: its high end reaching 0",
                      lambda r: (0.0, *_generation(r)["difference_ci"]), InBand("below")),
                Check("bank", "reference", "the study's bank problems rated by the same participants: generated "
                      "less bank mean interestingness", lambda r: _generation(r)["difference"],
                      Threshold(0.0, "above", strict=False))),
        diagnosis=_UNAVAILABLE),
}
