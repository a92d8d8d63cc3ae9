import io

from core.common.progress import ProgressLog, TqdmProgress, report


def count_to(n, progress=None):
    """A core-style function following the protocol: stops cleanly when asked."""
    done = []
    for step in range(1, n + 1):
        done.append(step)
        if not report(progress, step, n, {"loss": 1.0 / step}):
            break
    return done


def test_report_without_callback_continues():
    assert report(None, 1, 2) is True


def test_only_false_stops():
    assert report(lambda *a: None, 1, 2) is True
    assert report(lambda *a: 0, 1, 2) is True  # falsy but not False: carry on
    assert report(lambda *a: False, 1, 2) is False


def test_log_records_and_stops_early():
    log = ProgressLog(stop_after=3)
    assert count_to(10, progress=log) == [1, 2, 3]
    assert log.steps == [1, 2, 3] and log.totals == [10, 10, 10]
    assert log.metrics[1] == {"loss": 0.5}


def test_tqdm_adaptor_tracks_steps_and_metrics():
    out = io.StringIO()
    bar = TqdmProgress(desc="count", file=out, mininterval=0)
    assert count_to(4, progress=bar) == [1, 2, 3, 4]
    assert bar.bar.n == 4 and bar.bar.total == 4
    text = out.getvalue()
    assert "count" in text and "4/4" in text and "loss=0.25" in text


def test_tqdm_adaptor_closes_on_early_stop():
    out = io.StringIO()
    with TqdmProgress(file=out, mininterval=0) as bar:
        count_to(5, progress=lambda s, t, m: bar(s, t, m) and s < 2)
    assert bar.bar.n == 2 and "2/5" in out.getvalue()
    assert bar.bar.disable  # tqdm marks a closed bar disabled
