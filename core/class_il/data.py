"""The class-IL datasets: synthetic Gaussian tasks that sweep γ_min, scikit-learn's digits, generated sentences.

Every dataset is a :class:`TaskData`: train and test rows with a class and a task each (classes are
globally numbered, task t owns classes ``t·C .. t·C + C − 1``), plus an optional disjoint pretraining
split for the backbones.

Synthetic tasks (ours): in whitened within-class coordinates the classes are unit-covariance
Gaussians; task centroids lie on a line (``layout="line"``, neighbours at squared distance γ) or on a
regular simplex (``"simplex"``, every pair at γ), and a task's classes sit on a simplex of squared
side ``class_separation`` in other coordinates, orthogonal to the task directions, so the
population γ_min under the pooled within-task covariance is exactly ``gamma``. A random rotation
and axis scales then mix the coordinates; the task axes get variance ``task_axis_variance`` (0.3) so
that a Euclidean margin is a misspecified one (the slope test's control).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.common.seeding import derive_rng

LAYOUTS = ("line", "simplex")


@dataclass
class TaskData:
    """A class-IL dataset: train/test features (or texts), classes and tasks, and a pretraining split.

    Attributes
    ----------
    name : str
        What the dataset is, e.g. ``"digits"``.
    X_train, X_test : numpy.ndarray
        Rows (features, pixels or sentences as strings).
    y_train, y_test : numpy.ndarray
        Global class of each row (task t owns classes ``t·C .. t·C + C − 1``).
    task_train, task_test : numpy.ndarray
        Task of each row.
    X_pretrain, y_pretrain : numpy.ndarray
        A disjoint split for pretraining backbones (empty when the dataset has none).
    """

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    task_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    task_test: np.ndarray
    X_pretrain: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    y_pretrain: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def n_tasks(self) -> int:
        return len(np.unique(self.task_train))


def _simplex(k: int, squared_side: float) -> np.ndarray:
    """k points in k dimensions with pairwise squared distance ``squared_side`` (centred)."""
    if k == 1:
        return np.zeros((1, 1))
    P = np.eye(k) * np.sqrt(squared_side / 2)
    return P - P.mean(axis=0)


def gaussian_tasks(gamma: float, n_tasks: int = 5, classes_per_task: int = 2, dim: int = 12,
                   class_separation: float = 16.0, n_train: int = 200, n_test: int = 2000, layout: str = "line",
                   task_axis_variance: float = 0.3, seed: int = 0) -> TaskData:
    """Gaussian class-IL tasks whose population γ_min (pooled within-task covariance) equals ``gamma``.

    Parameters
    ----------
    gamma : float
        Squared Mahalanobis distance between neighbouring task centroids (0 makes every task's
        classes coincide with the other tasks': the zero-margin control).
    n_tasks, classes_per_task : int
        T tasks of C classes.
    dim : int
        Feature dimension (at least the task and class coordinates).
    class_separation : float
        Squared Mahalanobis distance between two classes of one task.
    n_train, n_test : int
        Samples per class.
    layout : {"line", "simplex"}
        Task centroids on a line (two neighbours at most) or a regular simplex (all at γ).
    task_axis_variance : float
        Variance of the task axes after mixing (a Euclidean margin is ``task_axis_variance · γ``).
    seed : int
        Seed of the mixing and the samples.

    Returns
    -------
    TaskData
        Train and test rows with classes and tasks; no pretraining split.

    Examples
    --------
    >>> d = gaussian_tasks(9.0, n_tasks=3, n_train=10, n_test=5)
    >>> d.X_train.shape, sorted(set(d.task_train.tolist()))
    ((60, 12), [0, 1, 2])
    """
    if gamma < 0:
        raise ValueError(f"gamma: {gamma} is out of range; allowed >= 0")
    if layout not in LAYOUTS:
        raise ValueError(f"layout: {layout!r} is not an option; allowed {', '.join(map(repr, LAYOUTS))}")
    task_dims = 1 if layout == "line" else n_tasks
    need = task_dims + classes_per_task
    if dim < need:
        raise ValueError(f"dim: {dim} is too small for this layout; allowed >= {need}")
    if layout == "line":
        task_pos = np.arange(n_tasks)[:, None] * np.sqrt(gamma)
    else:
        task_pos = _simplex(n_tasks, gamma)
    class_pos = _simplex(classes_per_task, class_separation)
    means = np.zeros((n_tasks * classes_per_task, dim))
    for t in range(n_tasks):
        for k in range(classes_per_task):
            means[t * classes_per_task + k, :task_dims] = task_pos[t]
            means[t * classes_per_task + k, task_dims:task_dims + classes_per_task] = class_pos[k]
    rng = derive_rng(seed, "mixing")
    Q, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    scales = rng.uniform(0.5, 2.0, dim)
    scales[:task_dims] = np.sqrt(task_axis_variance)
    A = Q * scales        # x = A z: the task axes have variance task_axis_variance, the rest 0.25..4
    offset = rng.normal(0, 3, dim)
    out = {}
    for split, n in (("train", n_train), ("test", n_test)):
        r = derive_rng(seed, "samples", split)
        y = np.repeat(np.arange(len(means)), n)
        Z = means[y] + r.standard_normal((len(y), dim))
        out[split] = (Z @ A.T + offset, y, y // classes_per_task)
    return TaskData(f"gaussian γ={gamma:g} ({layout})", *out["train"], *out["test"])


def digits_tasks(seed: int = 0, pretrain_share: float = 0.4, test_share: float = 0.3, noise: float = 0.0,
                 classes_per_task: int = 2) -> TaskData:
    """scikit-learn's digits as 5 tasks of 2 classes, with a disjoint pretraining split.

    Parameters
    ----------
    seed : int
        Seed of the splits (and of the noise).
    pretrain_share : float
        Share of the images held out for pretraining backbones.
    test_share : float
        Share of the rest used for testing.
    noise : float
        Gaussian pixel noise (in units of the 0..16 grey levels) added to every image: a harder
        second dataset from the same source.
    classes_per_task : int
        Classes per task (digits ``t·C .. t·C + C − 1`` form task t).

    Returns
    -------
    TaskData
        Pixels scaled to [0, 1], with the pretraining split filled.

    Examples
    --------
    >>> d = digits_tasks(0)
    >>> d.X_train.shape[1], d.n_tasks, len(d.X_pretrain) > 0
    (64, 5, True)
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    if noise > 0:
        X = X + derive_rng(seed, "digit-noise").normal(0, noise / 16.0, X.shape)
    rest, pre = train_test_split(np.arange(len(y)), test_size=pretrain_share, stratify=y,
                                 random_state=int(derive_rng(seed, "pretrain-split").integers(2**31)))
    train, test = train_test_split(rest, test_size=test_share, stratify=y[rest],
                                   random_state=int(derive_rng(seed, "test-split").integers(2**31)))
    name = "digits" + (f" + noise {noise:g}" if noise else "")
    return TaskData(name, X[train], y[train], y[train] // classes_per_task, X[test], y[test],
                    y[test] // classes_per_task, X[pre], y[pre])


# Generated sentences: 5 domains (tasks) of 2 topics (classes); phrases are ours.
TOPICS = {
    "sport": {"football": ["the striker scored a late goal", "the goalkeeper saved a penalty",
                           "the team won the football match", "the referee showed a red card",
                           "the midfielder passed the ball forward", "fans cheered in the stadium after the goal",
                           "the coach changed the football formation", "the defender cleared a corner kick"],
              "tennis": ["she served an ace on match point", "the tennis player hit a backhand winner",
                         "the umpire called the ball out", "he won the tiebreak in the final set",
                         "the doubles pair volleyed at the net", "rain stopped play on the grass court",
                         "she broke his serve in the second set", "the racket string snapped mid rally"]},
    "food": {"baking": ["she baked a loaf of sourdough bread", "the cake rose nicely in the oven",
                        "he kneaded the dough for ten minutes", "the cookies need more butter and sugar",
                        "the pastry crust turned golden brown", "we iced the cupcakes with cream",
                        "the bread dough proved overnight", "flour covered the whole kitchen counter"],
             "grilling": ["he grilled steaks on the barbecue", "the charcoal glowed under the burgers",
                          "we marinated the chicken before grilling", "smoke rose from the sausages on the grill",
                          "the ribs were slow cooked over wood", "she flipped the burgers with a spatula",
                          "the grill left char marks on the peppers", "skewers of lamb sizzled over the coals"]},
    "weather": {"rain": ["heavy rain flooded the streets", "a thunderstorm brought hours of rain",
                         "drizzle soaked everyone waiting for the bus", "the forecast promises showers all week",
                         "umbrellas were out during the downpour", "rainwater overflowed the gutters",
                         "the river rose after days of rain", "wet weather cancelled the picnic"],
                "heat": ["a heatwave pushed temperatures past forty degrees", "the sun scorched the dry fields",
                         "people searched for shade in the heat", "the hot weather melted the road tar",
                         "air conditioners ran all night in the heat", "the drought dried up the reservoir",
                         "sweltering afternoons kept everyone indoors", "record heat was measured in the city"]},
    "finance": {"stocks": ["shares rallied after strong earnings", "the stock market fell at the opening bell",
                           "investors bought technology stocks", "the share price doubled this year",
                           "traders sold shares before the report", "the index closed at a record high",
                           "dividends were paid to shareholders", "the stock dropped on weak guidance"],
                "loans": ["the bank approved her mortgage", "he repaid the loan with interest",
                          "interest rates on loans went up", "they borrowed money to buy a car",
                          "the lender refused the credit application", "monthly loan repayments became cheaper",
                          "students took out loans for tuition", "the mortgage term was extended by five years"]},
    "music": {"guitar": ["he strummed chords on his guitar", "the guitarist played a fast solo",
                         "she tuned the strings of the acoustic guitar", "the electric guitar riff was loud",
                         "he replaced a broken guitar string", "the band's guitarist used a new amplifier",
                         "fingerpicking on the guitar takes practice", "the guitar was out of tune again"],
              "piano": ["she practised scales on the piano", "the pianist performed a sonata",
                        "the piano keys were slightly out of tune", "he played a chord on the grand piano",
                        "the piano teacher praised her recital", "soft piano music filled the room",
                        "the upright piano needed a tuner", "both hands moved quickly across the keyboard"]},
}
OPENERS = ("", "Yesterday ", "I heard that ", "On the news ", "My friend said ")
CLOSERS = ("", " again", " this week", " at the weekend", " for the first time")


def sentence_corpus(per_class: int = 40, corpus_seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The generated sentences and their classes: ``per_class`` of each topic's 125 combinations.

    The corpus is fixed by ``corpus_seed`` (0 is the one whose MiniLM embeddings ship); splits vary.
    """
    rng = derive_rng(corpus_seed, "sentences")
    texts, labels = [], []
    for c, phrases in enumerate(p for domain in TOPICS.values() for p in domain.values()):
        combos = [(o, p, e) for o in OPENERS for p in phrases for e in CLOSERS]
        for i in rng.choice(len(combos), size=per_class, replace=False):
            o, p, e = combos[i]
            texts.append((o + p + e).strip() + ".")
            labels.append(c)
    texts = [t[0].upper() + t[1:] for t in texts]
    return np.array(texts), np.array(labels)


def sentence_tasks(seed: int = 0, per_class: int = 40, test_share: float = 0.5) -> TaskData:
    """Generated sentences, 5 tasks (domains) × 2 classes (topics); ``X_*`` are arrays of strings.

    Parameters
    ----------
    seed : int
        Seed of the stratified train/test split (the sentences are fixed: :func:`sentence_corpus`).
    per_class : int
        Sentences per topic (at most 200, the combinations of opener, phrase and closer).
    test_share : float
        Share of each topic's sentences used for testing.

    Returns
    -------
    TaskData
        Sentences as strings with their topic and domain; no pretraining split.

    Examples
    --------
    >>> d = sentence_tasks(0)
    >>> len(d.X_train), len(d.X_test), d.n_tasks
    (200, 200, 5)
    """
    texts, labels = sentence_corpus(per_class)
    rng = derive_rng(seed, "sentence-split")
    test = np.zeros(len(texts), dtype=bool)
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        test[rng.choice(idx, size=int(round(test_share * len(idx))), replace=False)] = True
    return TaskData("sentences", texts[~test], labels[~test], labels[~test] // 2, texts[test], labels[test],
                    labels[test] // 2)
