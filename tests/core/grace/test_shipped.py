"""What the page's first view and the live refit read instead of running the small CLIP: recomputed and compared."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.common.progress import ProgressLog
from core.grace.compare import FIT_SEED, N_FIT, N_TEST, TEST_SEED
from core.grace.composer import CLIP_SEED, COMPOSER_SEED, SECONDS, SceneGrid, compositions, embed_scene
from core.grace.refit import LIGHT, fit_tradeoff, refit_curve
from core.grace.scenes import make_scenes
from core.grace.shipped import attribute_labels, attributes_of, load_embeddings, load_shipped
from core.grace.vocabulary import default_vocabulary

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def model():
    from core.grace import load_model

    return load_model()


@pytest.fixture(scope="module")
def shipped():
    return load_embeddings()


@pytest.fixture
def one_thread():
    """One torch thread, as a live run gets, so the fits below take seconds on a shared machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_reading_the_shipped_files_imports_no_torch():
    code = ("import sys\n"
            "import core.grace, core.grace.ship, core.grace.refit\n"
            "from core.grace.shipped import load_embeddings, load_shipped\n"
            "methods, _ = load_shipped(); grid = load_embeddings().scenes\n"
            "x = grid.lookup({'shape': 'circle', 'colour': 'red', 'size': 'large', 'position': 'left'})\n"
            "methods['image']['GRACE'].encode(x); methods['image']['SpLiCE'].encode(x)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'transformers'}))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_the_grid_covers_every_composition_once(shipped):
    images, clips = compositions(), compositions(video=True)
    assert len(images) == 432 * len(SECONDS) == len(shipped.scenes.images) and len(SECONDS) == 37
    assert len(clips) == 432 == len(shipped.scenes.clips)
    assert len({repr(c) for c in images}) == len(images)
    assert (shipped.scenes.image_seed, shipped.scenes.clip_seed) == (COMPOSER_SEED, CLIP_SEED)


@pytest.mark.parametrize("video", [False, True])
def test_shipped_grid_rows_are_the_clip_embeddings_of_their_scenes(model, shipped, video):
    grid = compositions(video)
    for attrs, second in grid[:: 1111 if not video else 97]:
        seed = CLIP_SEED if video else COMPOSER_SEED
        found = shipped.scenes.lookup(attrs, second, seed, video)
        assert np.allclose(found, embed_scene(attrs, second, seed=seed, video=video, model=model), atol=1e-5)


def test_lookup_misses_what_is_not_shipped(shipped):
    attrs, second = {"shape": "cross", "colour": "blue", "size": "small", "position": "top"}, {"shape": "circle",
                                                                                              "colour": "red"}
    grid = shipped.scenes
    assert grid.lookup(attrs, second, COMPOSER_SEED) is not None
    assert not np.allclose(grid.lookup(attrs, second), grid.lookup(attrs, None))   # the second object shows
    assert grid.lookup(attrs, second, seed=COMPOSER_SEED + 1) is None             # another seed: embed live
    assert grid.lookup({**attrs, "colour": "pink"}, second) is None
    small = SceneGrid(grid.images, grid.clips, image_seed=5)
    assert small.lookup(attrs, second, 5) is not None and small.lookup(attrs, second, COMPOSER_SEED) is None


def test_shipped_fit_scenes_concepts_and_labels_match_a_recomputation(model, shipped):
    from core.grace import embed_images, embed_texts

    assert shipped.fit.shape == (N_FIT, 32) and shipped.concepts.shape == (len(default_vocabulary()), 32)
    first = make_scenes(64, FIT_SEED)          # the first scenes of a seeded set do not depend on its size
    assert np.allclose(shipped.fit[:64], embed_images(model, first.images), atol=1e-5)
    assert np.allclose(shipped.concepts, embed_texts(model, default_vocabulary()), atol=1e-5)
    assert shipped.test_attributes == make_scenes(N_TEST, TEST_SEED).attributes
    assert attributes_of(attribute_labels(shipped.test_attributes[:9])) == shipped.test_attributes[:9]


def test_a_refit_on_the_shipped_embeddings_reproduces_the_shipped_curve(shipped, one_thread):
    methods, doc = load_shipped()
    row = next(r for r in doc["curves"]["image"] if r["method"] == "GRACE" and r["geometry"] == 1.0
               and r["knob"] == LIGHT[0])
    curve = fit_tradeoff(shipped.fit, methods["image"]["test_embeddings"], default_vocabulary(), shipped.concepts,
                         geometry=1.0, sparsities=LIGHT[:1])
    # Torch's CPU reductions depend on the thread count, so 300 Adam steps agree closely, not bit for bit.
    assert curve.l0[0] == pytest.approx(row["L0"], abs=0.05)
    assert curve.trustworthiness[0] == pytest.approx(row["trustworthiness"], abs=2e-3)
    assert curve.reconstruction[0] == pytest.approx(row["reconstruction cosine (centred)"], abs=5e-3)
    assert not curve.stopped and curve.rows()[0].keys() == row.keys()


def test_a_stopped_refit_skips_the_remaining_fits_and_the_scoring(one_thread):
    log = ProgressLog()
    full = refit_curve(geometry=1.0, steps=20, progress=log)
    chunks = 3                                  # two loss reports (every 10 of 20 steps), then the scored one
    assert not full.stopped and len(full.l0) == len(LIGHT) and log.steps == list(range(1, 3 * chunks + 1))
    assert set(log.totals) == {3 * chunks} and "trustworthiness" in log.metrics[chunks - 1]
    for stop_after, points in ((1, 0), (chunks, 1), (chunks + 1, 1)):
        log = ProgressLog(stop_after=stop_after)
        curve = refit_curve(geometry=1.0, steps=20, progress=log)
        assert curve.stopped and len(curve.l0) == points and curve.planned == len(LIGHT)
        assert len(log.steps) == stop_after            # nothing reported, nothing fitted, after the stop
        assert np.allclose(curve.l0, full.l0[:points]) and curve.rows() == full.rows()[:points]
    last = refit_curve(geometry=1.0, steps=20, progress=ProgressLog(stop_after=3 * chunks))
    assert not last.stopped and len(last.l0) == len(LIGHT)   # a stop at the very end loses nothing


def test_refit_settings_are_validated():
    with pytest.raises(ValueError, match="^geometry: "):
        refit_curve(geometry=-1.0)
    with pytest.raises(ValueError, match="^steps: "):
        refit_curve(steps=0)


@pytest.mark.parametrize("kwargs, field", [({"n_fit": 1}, "n_fit"), ({"n_test": 20}, "n_test"), ({"steps": 0}, "steps"),
                                           ({"seed": -1}, "seed"), ({"full": "yes"}, "full"),
                                           ({"geometry": -1.0}, "geometry")])
def test_the_live_refit_checks_every_setting_before_loading_anything(kwargs, field, monkeypatch):
    import core.grace.shipped as shipped_module

    def refuse(*_):
        raise AssertionError("loaded the shipped embeddings before validating")

    monkeypatch.setattr(shipped_module, "load_embeddings", refuse)
    with pytest.raises(ValueError, match=f"^{field}: .*; allowed "):
        refit_curve(**kwargs)


def test_the_tradeoff_refuses_bad_sparsity_weights():
    x = np.random.default_rng(0).normal(size=(30, 4))
    for bad, message in (((), "^sparsities: empty; allowed"), ((0.1, -1.0), "^sparsities: -1 is out of range")):
        with pytest.raises(ValueError, match=message):
            fit_tradeoff(x, x, ["a", "b"], x[:2], sparsities=bad)
