"""Task families for the merging experiments: each is a pretraining task (index 0) and fine-tuning tasks.

Every family ends in features on which a linear head acts, because the paper's theory is about
multiclass linear classification: the LoRA adapters sit on that head.

- ``synthetic``: Gaussian classes in orthonormal blocks of a random basis of R^d. Task t's class means
  are orthonormal directions of its own block; with ``overlap`` = eps each mean gets a component eps
  along a shared block (a random permutation of the classes per task, so the shared parts interfere),
  giving near-orthogonal tasks. Noise lies inside the task's own block, so at eps = 0 task t's data
  lie exactly in its block and the tasks are exactly orthogonal. All tasks share the label set.
- ``digits``: scikit-learn's digits split by class subsets {0,1,2,3} (pretraining), {4,5,6}, {7,8,9};
  the features are the hidden layer (32 ReLU units) of a small MLP pretrained on the pretraining task
  only (scikit-learn's MLPClassifier), centred at the pretraining features' mean and scaled to unit
  mean norm (ours: ReLU features share a large mean component, the least orthogonal part of them,
  and a deployed model knows its pretraining mean). The label space is all ten digits.
- ``text``: MiniLM (all-MiniLM-L6-v2) sentence embeddings of generated sentences in nine topics, three
  per task, centred and scaled like the digits features; the embeddings ship in
  ``assets/malora/text_embeddings.npz`` (written by
  ``python -m core.malora.ship``), so no language model runs here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.common.assets import asset_dir
from core.common.config import check_range
from core.common.seeding import check_seed, derive_rng, derive_seed

FAMILIES = ("synthetic", "digits", "text")
FAMILY_LABELS = {"synthetic": "Synthetic Gaussian tasks", "digits": "Digits (class-subset tasks, MLP features)",
                 "text": "Text (MiniLM embeddings of generated sentences)"}
ASSETS = asset_dir("malora")
TEXT_EMBEDDINGS = ASSETS / "text_embeddings.npz"


@dataclass
class TaskSet:
    """Features and labels of the pretraining task (index 0) and the fine-tuning tasks (1..T).

    Attributes
    ----------
    family : str
        One of :data:`FAMILIES`.
    task_names : list of str
        T + 1 names, the pretraining task first.
    n_classes : int
        The size of the shared label space (the rows of the head).
    X_train : list of ndarray of shape (n_t, d)
        Training features per task.
    y_train : list of ndarray of shape (n_t,)
        Training labels per task, in ``0..n_classes-1``.
    X_test : list of ndarray of shape (m_t, d)
        Held-out features per task.
    y_test : list of ndarray of shape (m_t,)
        Held-out labels per task.
    classes : list of ndarray
        ``classes[t]`` lists the labels that occur in task t.

    Examples
    --------
    >>> tasks = synthetic_tasks(n_tasks=2, n_per_class=4, n_test_per_class=2, seed=0)
    >>> tasks.n_tasks, tasks.dim, tasks.X_train[1].shape, tasks.task_names
    (2, 12, (12, 12), ['pretraining', 'task 1', 'task 2'])
    """

    family: str
    task_names: list
    n_classes: int
    X_train: list
    y_train: list
    X_test: list
    y_test: list
    classes: list

    @property
    def n_tasks(self) -> int:
        """Fine-tuning tasks (the pretraining task not counted)."""
        return len(self.X_train) - 1

    @property
    def dim(self) -> int:
        """The feature dimension d."""
        return int(self.X_train[0].shape[1])


@dataclass
class TextCorpus:
    """The generated sentences of the text family, with their topics and templates.

    Attributes
    ----------
    sentences : list of str
        Every sentence, topic by topic in :data:`TOPICS` order.
    labels : ndarray of shape (n,)
        The topic index (0..8) of each sentence.
    template : ndarray of shape (n,)
        The base sentence (0..7 within its topic) each one was built from; a train/test split keeps
        a template on one side.
    """

    sentences: list
    labels: np.ndarray
    template: np.ndarray


def synthetic_tasks(n_tasks: int = 2, n_classes: int = 3, overlap: float = 0.0, noise: float = 0.2,
                    n_per_class: int = 30, n_test_per_class: int = 100, anisotropy: float = 1.0,
                    seed: int = 0) -> TaskSet:
    """Orthogonal (``overlap = 0``) or near-orthogonal Gaussian classification tasks.

    Task t's class means are orthonormal directions u_{t,c} of its own block of a random orthonormal
    basis of R^d, plus a share ``overlap`` of a common block (the classes permuted per task); the
    noise lies inside the task's own block. The pretraining task is task 0.

    Parameters
    ----------
    n_tasks : int
        Fine-tuning tasks T (1..6); the pretraining task comes on top.
    n_classes : int
        Classes C (2..6), shared by every task; each task's block has C dimensions, d = C (T + 2).
    overlap : float
        eps in [0, 0.9]: mean of class c in task t is sqrt(1 - eps^2) u_{t,c} + eps s_{pi_t(c)}.
    noise : float
        Standard deviation of the noise inside the task's block, in (0, 2].
    n_per_class : int
        Training samples per class and task, 2..2000.
    n_test_per_class : int
        Held-out samples per class and task, 1..5000.
    anisotropy : float
        In [1, 10]: the noise's standard deviation is ``anisotropy * noise`` along one random direction of
        each task's block and ``noise`` along the others. At 1 (isotropic) the class-mean classifier is
        already close to the max-margin one; above 1 they differ, which is what lets an alignment test
        tell the max-margin solution from the trivial one.
    seed : int
        Seeds the basis, the permutations and the noise (child seeds).

    Returns
    -------
    TaskSet
        T + 1 tasks of C classes each in d = C (T + 2) dimensions.

    Examples
    --------
    >>> tasks = synthetic_tasks(n_tasks=2, n_per_class=5, n_test_per_class=2, seed=0)
    >>> tasks.X_train[1].shape, bool(np.abs(tasks.X_train[1] @ tasks.X_train[2].T).max() < 1e-12)
    ((15, 12), True)
    """
    n_tasks = check_range("n_tasks", n_tasks, 1, 6, integer=True)
    n_classes = check_range("n_classes", n_classes, 2, 6, integer=True)
    overlap = check_range("overlap", overlap, 0.0, 0.9)
    noise = check_range("noise", noise, 0.0, 2.0, low_open=True)
    n_per_class = check_range("n_per_class", n_per_class, 2, 2000, integer=True)
    n_test_per_class = check_range("n_test_per_class", n_test_per_class, 1, 5000, integer=True)
    anisotropy = check_range("anisotropy", anisotropy, 1.0, 10.0)
    seed = check_seed(seed)
    k = n_classes
    d = k * (n_tasks + 2)
    basis, _ = np.linalg.qr(derive_rng(seed, "basis").standard_normal((d, d)))
    shared = basis[:, (n_tasks + 1) * k:]
    out = {"X_train": [], "y_train": [], "X_test": [], "y_test": []}
    for t in range(n_tasks + 1):
        block = basis[:, t * k:(t + 1) * k]
        perm = derive_rng(seed, "perm", t).permutation(k) if t else np.arange(k)
        rot, _ = np.linalg.qr(derive_rng(seed, "noise-axes", t).standard_normal((k, k)))
        spread = rot * np.r_[anisotropy, np.ones(k - 1)] @ rot.T          # (k, k): noise shape in the block
        means = np.sqrt(1 - overlap ** 2) * block.T + overlap * shared[:, perm].T       # (k classes, d)
        for split, n in (("train", n_per_class), ("test", n_test_per_class)):
            rng = derive_rng(seed, split, t)
            y = np.repeat(np.arange(k), n)
            X = means[y] + noise * rng.standard_normal((len(y), k)) @ spread @ block.T
            out[f"X_{split}"].append(X)
            out[f"y_{split}"].append(y)
    names = ["pretraining"] + [f"task {t}" for t in range(1, n_tasks + 1)]
    return TaskSet("synthetic", names, k, classes=[np.arange(k)] * (n_tasks + 1), **out)


DIGIT_TASKS = ((0, 1, 2, 3), (4, 5, 6), (7, 8, 9))


def _split(n: int, test_share: float, seed: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    order = derive_rng(seed, "split", name).permutation(n)
    cut = int(round(n * (1 - test_share)))
    return np.sort(order[:cut]), np.sort(order[cut:])


def digits_tasks(hidden: int = 32, seed: int = 0) -> TaskSet:
    """scikit-learn's digits in class-subset tasks, on the hidden layer of an MLP pretrained on task 0.

    Half of each task's samples (seeded) train, half test. The MLP (``hidden`` ReLU units, Adam, L2
    1e-3, 300 iterations) sees only the pretraining task's training half; its hidden layer is the
    feature map of every task. Features are centred at the pretraining features' mean and scaled by
    one constant (their mean norm) so that margins are comparable across families.

    Parameters
    ----------
    hidden : int
        Hidden ReLU units of the MLP, 4..256 (the feature dimension).
    seed : int
        Seeds the splits and the MLP (child seeds).

    Returns
    -------
    TaskSet
        Digits 0-3 (pretraining), 4-6 and 7-9, ten classes.

    Examples
    --------
    >>> tasks = digits_tasks(hidden=4, seed=0)  # trains the small MLP: about a second
    >>> tasks.n_classes, tasks.dim, [c.tolist() for c in tasks.classes]
    (10, 4, [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]])
    """
    from sklearn.datasets import load_digits
    from sklearn.neural_network import MLPClassifier

    hidden = check_range("hidden", hidden, 4, 256, integer=True)
    seed = check_seed(seed)
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    parts = []
    for t, classes in enumerate(DIGIT_TASKS):
        idx = np.flatnonzero(np.isin(y, classes))
        tr, te = _split(len(idx), 0.5, seed, f"digits{t}")
        parts.append((idx[tr], idx[te]))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # ConvergenceWarning at 300 iterations: the features are what we need
        mlp = MLPClassifier((hidden,), alpha=1e-3, max_iter=300, random_state=derive_seed(seed, "mlp") % 2**31)
        mlp.fit(X[parts[0][0]], y[parts[0][0]])

    def features(rows):
        return np.maximum(X[rows] @ mlp.coefs_[0] + mlp.intercepts_[0], 0.0)

    F0 = features(parts[0][0])
    centre = F0.mean(axis=0)
    scale = float(np.mean(np.linalg.norm(F0 - centre, axis=1))) or 1.0

    def prepared(rows):
        return (features(rows) - centre) / scale

    names = ["digits 0-3 (pretraining)", "digits 4-6", "digits 7-9"]
    return TaskSet("digits", names, 10, [prepared(tr) for tr, _ in parts], [y[tr] for tr, _ in parts],
                   [prepared(te) for _, te in parts], [y[te] for _, te in parts], [np.array(c) for c in DIGIT_TASKS])


# Nine topics, three per task: (pretraining) sports, food, weather; (task 1) music, technology, travel;
# (task 2) health, finance, animals. Sentences are built from templates and fillers, deterministically.
TOPICS = {
    "sports": ("the striker scored in the final minute", "our team won the championship game",
               "the coach changed the lineup before kickoff", "she ran the marathon in record time",
               "the referee showed a red card", "the tennis match went to a fifth set",
               "fans filled the stadium for the derby", "he trained all winter for the race"),
    "food": ("the soup needs more salt and pepper", "we baked fresh bread this morning",
             "the restaurant serves spicy noodles", "she cooked a vegetable curry for dinner",
             "the chef grilled the fish with lemon", "this cake tastes of chocolate and cherries",
             "they ordered pizza with mushrooms", "he roasted the chicken with garlic"),
    "weather": ("heavy rain is expected this afternoon", "the storm knocked out power overnight",
                "it will be sunny and warm tomorrow", "snow covered the roads by morning",
                "a cold wind blew from the north", "the forecast warns of thunder and hail",
                "fog delayed flights at dawn", "temperatures dropped below freezing"),
    "music": ("the band played their new album live", "she practises the violin every evening",
              "the orchestra performed a symphony", "he wrote the lyrics for the song",
              "the concert sold out in minutes", "the guitarist tuned his strings",
              "the choir sang at the festival", "a drummer kept the rhythm steady"),
    "technology": ("the new phone has a faster processor", "engineers fixed a bug in the software",
                   "the laptop battery lasts all day", "the company released an update to the app",
                   "the server crashed after the upgrade", "he installed a larger hard drive",
                   "the network router needs a reset", "developers tested the code on the cloud"),
    "travel": ("we booked a flight to the coast", "the train to the mountains leaves at noon",
               "she packed her suitcase for the trip", "the hotel overlooks the old harbour",
               "tourists visited the ancient castle", "he lost his passport at the airport",
               "our road trip crossed three borders", "the ferry sailed to the island"),
    "health": ("the doctor prescribed a course of antibiotics", "regular exercise lowers blood pressure",
               "the nurse checked the patient's temperature", "she recovered quickly after surgery",
               "the clinic offers free vaccinations", "he sprained his ankle and needs rest",
               "a balanced diet supports the immune system", "the hospital opened a new ward"),
    "finance": ("the bank raised its interest rates", "stock prices fell sharply today",
                "she saved part of her salary each month", "the company reported record profits",
                "investors sold their bonds", "the loan must be repaid within five years",
                "inflation eroded their savings", "he filed his tax return early"),
    "animals": ("the cat slept on the warm windowsill", "a fox crept through the garden",
                "the dog fetched the ball from the lake", "birds migrate south for the winter",
                "the horse galloped across the field", "an owl hunted mice at night",
                "the elephant sprayed water with its trunk", "bees collected pollen from the flowers"),
}
TEXT_TASKS = (("sports", "food", "weather"), ("music", "technology", "travel"), ("health", "finance", "animals"))
PREFIXES = ("", "yesterday ", "apparently ", "once again ", "this week ", "according to the news ")
SUFFIXES = ("", " again", " as expected", " to everyone's surprise")


def text_corpus() -> TextCorpus:
    """The text family's generated sentences, their topic labels and base-sentence index.

    Each base sentence of a topic gets six prefixes and a rotating suffix, deterministically.

    Returns
    -------
    TextCorpus
        432 sentences: 9 topics x 8 base sentences x 6 variants.

    Examples
    --------
    >>> corpus = text_corpus()
    >>> len(corpus.sentences), corpus.sentences[0], int(corpus.labels[-1]), int(corpus.template[-1])
    (432, 'the striker scored in the final minute.', 8, 7)
    """
    sentences, labels, template = [], [], []
    for label, topic in enumerate(TOPICS):
        for i, base in enumerate(TOPICS[topic]):
            for j, prefix in enumerate(PREFIXES):
                sentences.append(prefix + base + SUFFIXES[(i + j) % len(SUFFIXES)] + ".")
                labels.append(label)
                template.append(i)
    return TextCorpus(sentences, np.array(labels), np.array(template))


def text_tasks(seed: int = 0, path: Path = TEXT_EMBEDDINGS) -> TaskSet:
    """The shipped MiniLM embeddings in three topic tasks; a seeded half of each topic trains.

    The split keeps every template (base sentence) on one side only, so test sentences are new
    sentences, not re-worded training ones. Features are centred at the pretraining training mean and
    scaled by their mean norm.

    Parameters
    ----------
    seed : int
        Seeds which half of each topic's templates trains.
    path : pathlib.Path
        The embeddings file written by ``python -m core.malora.ship`` (default: the shipped one).

    Returns
    -------
    TaskSet
        Three tasks of three topics each, nine classes, d = 384.

    Examples
    --------
    >>> tasks = text_tasks(seed=0)
    >>> tasks.n_classes, tasks.dim, [c.tolist() for c in tasks.classes]
    (9, 384, [[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    """
    seed = check_seed(seed)
    if not Path(path).is_file():
        raise ValueError(f"family: the text embeddings are not shipped ({path}); allowed after "
                         "`python -m core.malora.ship`")
    with np.load(path) as z:
        E, y, template = z["embeddings"].astype(float), z["labels"], z["template"]
    topics = list(TOPICS)
    out = {"X_train": [], "y_train": [], "X_test": [], "y_test": []}
    for t, names in enumerate(TEXT_TASKS):
        train, test = [], []
        for name in names:
            label = topics.index(name)
            chosen = derive_rng(seed, "text", name).permutation(len(TOPICS[name]))[: len(TOPICS[name]) // 2]
            rows = np.flatnonzero(y == label)
            on = np.isin(template[rows], chosen)
            train.append(rows[on])
            test.append(rows[~on])
        tr, te = np.concatenate(train), np.concatenate(test)
        out["X_train"].append(E[tr])
        out["y_train"].append(y[tr])
        out["X_test"].append(E[te])
        out["y_test"].append(y[te])
    centre = out["X_train"][0].mean(axis=0)
    scale = float(np.mean(np.linalg.norm(out["X_train"][0] - centre, axis=1))) or 1.0
    for split in ("X_train", "X_test"):
        out[split] = [(X - centre) / scale for X in out[split]]
    names = ["sports / food / weather (pretraining)", "music / technology / travel", "health / finance / animals"]
    classes = [np.array([topics.index(n) for n in names_]) for names_ in TEXT_TASKS]
    return TaskSet("text", names, len(topics), classes=classes, **out)


def make_tasks(family: str, *, n_tasks: int = 2, n_classes: int = 3, overlap: float = 0.0, noise: float = 0.2,
               seed: int = 0) -> TaskSet:
    """The tasks of one of :data:`FAMILIES`; the synthetic knobs are ignored by the real families.

    Parameters
    ----------
    family : str
        ``"synthetic"``, ``"digits"`` or ``"text"``.
    n_tasks : int
        Synthetic only: fine-tuning tasks, see :func:`synthetic_tasks`.
    n_classes : int
        Synthetic only: classes.
    overlap : float
        Synthetic only: the shared component of the class means.
    noise : float
        Synthetic only: the noise inside each block.
    seed : int
        Seeds the family's generator.

    Returns
    -------
    TaskSet
        From :func:`synthetic_tasks`, :func:`digits_tasks` or :func:`text_tasks`.

    Examples
    --------
    >>> make_tasks("synthetic", n_tasks=3, seed=1).task_names
    ['pretraining', 'task 1', 'task 2', 'task 3']
    """
    if family not in FAMILIES:
        raise ValueError(f"family: {family!r} is not a task family; allowed {', '.join(map(repr, FAMILIES))}")
    if family == "synthetic":
        return synthetic_tasks(n_tasks, n_classes, overlap, noise, seed=seed)
    if family == "digits":
        return digits_tasks(seed=seed)
    return text_tasks(seed=seed)
