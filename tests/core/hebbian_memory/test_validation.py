"""Bad input names its field and changes nothing; long work stops cleanly on request."""

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.hebbian_memory import (ModelConfig, PredictorConfig, TaskConfig, TrainConfig, TransferConfig, make_lexicon,
                                 meta_train, rank_recall_episodes, train_predictor, transfer_run)


@pytest.mark.parametrize("build, field", [
    (lambda: TaskConfig(n_chunks=9), "n_chunks"),
    (lambda: TaskConfig(cues="sometimes"), "cues"),
    (lambda: TaskConfig(cues="predicted"), "cues"),
    (lambda: TaskConfig(probes=10), "probes"),
    (lambda: TaskConfig(items="lexicon", lexicon_words=4, n_chunks=4, chunk_size=2).replace(lexicon_words=3), "lexicon_words"),
    (lambda: ModelConfig(kind="gru"), "kind"),
    (lambda: ModelConfig(hidden=0), "hidden"),
    (lambda: TrainConfig(lr=0.0), "lr"),
    (lambda: PredictorConfig(threshold=-1.0), "threshold"),
    (lambda: TransferConfig(threshold=1.5), "threshold"),
])
def test_bad_config_values_name_their_field(build, field):
    with pytest.raises(ValueError, match=rf"^{field}: .*; allowed "):
        build()


def test_bad_arguments_name_their_field_and_leave_the_config_alone():
    cfg = TaskConfig()
    with pytest.raises(ValueError, match=r"^batch: .*; allowed integers in \[1, 100000\]"):
        rank_recall_episodes(cfg, 0, seed=0)
    with pytest.raises(ValueError, match="^predictor: "):
        rank_recall_episodes(TaskConfig(items="lexicon", cues="predicted"), 2, seed=0)
    with pytest.raises(ValueError, match="^seed: "):
        rank_recall_episodes(cfg, 2, seed=-1)
    assert cfg == TaskConfig()


def test_same_seed_same_episodes_and_weights():
    a, b = rank_recall_episodes(TaskConfig(), 3, seed=5), rank_recall_episodes(TaskConfig(), 3, seed=5)
    assert np.array_equal(a.inputs, b.inputs) and not np.array_equal(a.inputs, rank_recall_episodes(TaskConfig(), 3, 6).inputs)
    small = dict(task=TaskConfig(), model=ModelConfig(hidden=8), train=TrainConfig(steps=3, batch=4, eval_every=1))
    r1, r2 = meta_train(seed=1, **small), meta_train(seed=1, **small)
    assert np.array_equal(r1.loss, r2.loss)


def test_meta_training_predictor_and_transfer_stop_when_asked():
    log = ProgressLog(stop_after=2)
    run = meta_train(TaskConfig(), ModelConfig(hidden=8), TrainConfig(steps=50, batch=2, eval_every=5), 0, log)
    assert run.done == 10 and log.steps == [5, 10] and log.totals == [50, 50] and len(run.accuracy) == 2
    log = ProgressLog(stop_after=1)
    pred = train_predictor(make_lexicon(TaskConfig(items="lexicon"), 0), PredictorConfig(n_words=500), 0, log)
    assert len(pred.loss) == 1 and log.totals == [5]
    base = meta_train(TaskConfig(), ModelConfig(hidden=8), TrainConfig(steps=1, batch=2), 0)
    log = ProgressLog(stop_after=1)
    t = transfer_run(TransferConfig(steps=20, batch=2, report_every=5), 0, log, scaffold=base)
    assert log.steps == [5] and log.totals == [40]
    assert np.isfinite(t.scaffold[0]) and np.isnan(t.scaffold[1]) and np.all(np.isnan(t.scratch))
