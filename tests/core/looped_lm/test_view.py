"""The page's views: the shipped file against a recomputation, the prefix property that lets one 64-loop
pass serve every loop count, and the live run and the own-model probe stopping at their next step."""

import subprocess
import sys

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.looped_lm import LoopedConfig, load_pretrained, loop_view, stage_view, train_and_view
from core.looped_lm.view import MAX_LOOPS, load_stage_view, load_view, shipped_metadata


def close(a, b):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["stable", "unstable"])
def test_shipped_views_match_a_recomputation(name):
    shipped = load_pretrained(name)
    model, task = shipped.model, shipped.task
    shipped, fresh = load_view(name), loop_view(model, task, loops=12)
    assert shipped.num_loops == MAX_LOOPS
    part = shipped.upto(12)
    for field in ("answer_states", "delta", "separation", "attention_change", "attention_maps"):
        assert close(getattr(part, field), getattr(fresh, field)), field
    stages, again = load_stage_view(name), stage_view(model, load_pretrained("feedforward").model, task)
    assert list(stages.looped_labels) == list(again.looped_labels)
    assert close(stages.looped_entropy, again.looped_entropy) and close(stages.cka, again.cka)
    assert close(stages.feedforward_entropy, again.feedforward_entropy)


def test_a_view_of_fewer_loops_is_the_prefix_of_a_longer_one():
    shipped = load_pretrained("stable")
    model, task = shipped.model, shipped.task
    short, long = loop_view(model, task, loops=5), loop_view(model, task, loops=9).upto(5)
    for field in ("answer_states", "delta", "separation", "attention_change", "attention_maps"):
        assert np.array_equal(getattr(short, field), getattr(long, field)), field
    with pytest.raises(ValueError, match="^loops: 10 is out of range"):
        long.upto(10)


def test_the_shipped_designs_read_as_the_claim_says():
    stable, unstable = load_view("stable").upto(40), load_view("unstable").upto(40)
    assert stable.stable_cycle(32) and not unstable.stable_cycle(32)
    frame = stable.to_frame()
    assert len(frame) == 40 and frame["delta layer 0"].iloc[31] == stable.delta[31, 0]
    assert set(shipped_metadata("pointer")["accuracy_by_hops"]) == {"loops", "accuracy"}
    with pytest.raises(ValueError, match="^name: "):
        load_view("feedforward")


def test_the_views_load_without_torch():
    code = ("import sys\nfrom core.looped_lm.view import load_view, load_stage_view, shipped_metadata\n"
            "load_view('stable'); load_stage_view('unstable'); shipped_metadata('pointer')\n"
            "import core.looped_lm\nprint('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_stopped_live_run_ends_at_its_next_step_and_computes_no_view():
    log = ProgressLog(stop_after=1)
    trained = train_and_view(LoopedConfig(steps=50), seed=0, progress=log)
    assert log.steps == [1] and log.totals == [51]
    assert trained.train.stopped and trained.loops is None and trained.stages is None


def test_a_finished_live_run_carries_its_views(monkeypatch):
    import core.looped_lm.training as training

    # The final evaluation (6 loop counts x 512 samples) is train()'s, tested in test_model.py; here a stub.
    monkeypatch.setattr(training, "accuracy_by_loops", lambda model, task: {32: 0.0})
    log = ProgressLog()
    config = LoopedConfig(d_model=16, heads=2, steps=3, batch_size=8)
    trained = train_and_view(config, seed=0, progress=log)
    assert log.steps == [1, 2, 3, 4] and set(log.totals) == {4}
    assert trained.loops.num_loops == MAX_LOOPS and trained.stages is not None and trained.train.accuracy == {32: 0.0}
    pointer = train_and_view(LoopedConfig(task="pointer_chasing", d_model=16, heads=2, steps=2, batch_size=8), seed=0)
    assert pointer.loops is not None and pointer.stages is None   # no feedforward model of that task ships


def test_the_own_model_probe_stops_after_loading(tmp_path):
    from core.looped_lm import profile_causal_lm
    from tests.core.looped_lm.test_hf_stages import save_tiny

    directory = save_tiny(tmp_path, "gpt2")
    log = ProgressLog(stop_after=1)
    assert profile_causal_lm(directory, progress=log) is None and log.steps == [1]
    log = ProgressLog()
    profile = profile_causal_lm(directory, progress=log)
    assert log.steps == [1, 2] and profile.depth_labels == ["embedding", "layer 1", "layer 2", "layer 3"]
    with pytest.raises(ValueError, match="^text: empty"):
        profile_causal_lm(tmp_path / "nowhere", "  ")        # refused before any load


def test_shipped_pointer_stages_match_a_recomputation():
    from core.looped_lm.stages import hop_stages
    from core.looped_lm.view import load_hop_stages

    shipped = load_pretrained("pointer")

    model, task = shipped.model, shipped.task
    shipped, fresh = load_hop_stages("pointer"), hop_stages(model, load_pretrained("pointer_feedforward").model, task,
                                                             loops=4)
    for field in ("coda_accuracy", "logit_accuracy", "entropy", "matrix_entropy", "hops_done"):
        assert close(getattr(shipped, field)[:4], getattr(fresh, field)), field
    for field in ("feedforward_accuracy", "feedforward_matrix_entropy", "feedforward_hops_done"):
        assert close(getattr(shipped, field), getattr(fresh, field)), field
    assert close(shipped.cka[:, :4], fresh.cka)
    with pytest.raises(ValueError, match="^model: 'stable' is not an option"):
        load_hop_stages("stable")


def test_shipped_radius_matches_a_recomputation():
    from core.looped_lm.ship import cycle_radius
    from core.looped_lm.view import shipped_radius

    shipped = load_pretrained("stable")

    model, task = shipped.model, shipped.task
    assert shipped_radius("stable") == pytest.approx(cycle_radius(model, task), rel=1e-3)
