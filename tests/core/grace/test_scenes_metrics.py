"""Scenes, captions, vocabulary and the metric definitions."""

import numpy as np
import pytest
from sklearn.manifold import trustworthiness as sk_trustworthiness

from core.grace import default_vocabulary, make_scene, make_scenes
from core.grace.clip import EOS, tokenize
from core.grace.metrics import (concept_attribute_agreement, reconstruction_cosine, sparsity, triplet_agreement,
                                trustworthiness, zero_shot_accuracy, zero_shot_prompts)
from core.grace.scenes import ATTRIBUTES, MOTIONS, RGB


def test_scenes_are_seeded_and_shaped():
    a, b = make_scenes(20, 3), make_scenes(20, 3)
    assert a.images.shape == (20, 32, 32, 3) and a.images.dtype == np.uint8
    assert np.array_equal(a.images, b.images) and a.captions == b.captions
    assert not np.array_equal(a.images, make_scenes(20, 4).images)
    clips = make_scenes(5, 3, video=True)
    assert clips.images.shape == (5, 8, 32, 32, 3) and set(clips.attributes[0]) == {"shape", "colour", "size", "motion"}


def test_captions_name_the_true_attributes_and_the_pixels_show_them():
    scenes = make_scenes(50, 0)
    for image, text, attrs, second in zip(scenes.images, scenes.captions, scenes.attributes, scenes.second):
        assert text.startswith(f"a {attrs['size']} {attrs['colour']} {attrs['shape']} on the {attrs['position']}")
        assert ("and a tiny" in text) == (second is not None)
        # The main object's colour is the most common non-background colour.
        pixels = image.reshape(-1, 3).astype(float)
        nearest = np.argmin(((pixels[:, None] - np.array(list(RGB.values()))[None]) ** 2).sum(-1), 1)
        far = ((pixels[:, None] - np.array(list(RGB.values()))[None]) ** 2).sum(-1).min(1) < 60**2
        assert list(RGB)[np.bincount(nearest[far], minlength=4).argmax()] == attrs["colour"]


def test_clips_move_in_their_direction():
    clips = make_scenes(12, 1, video=True)
    for frames, attrs in zip(clips.images, clips.attributes):
        colour = np.array(RGB[attrs["colour"]])
        centres = []
        for f in (frames[0], frames[-1]):
            rows, cols = np.nonzero((np.abs(f.astype(int) - colour).sum(-1) < 60))
            centres.append((rows.mean(), cols.mean()))
        d_row, d_col = centres[1][0] - centres[0][0], centres[1][1] - centres[0][1]
        expected = {"leftward": d_col < -8, "rightward": d_col > 8, "upward": d_row < -8, "downward": d_row > 8}
        assert expected[attrs["motion"]], (attrs, d_row, d_col)


def test_composed_scene_and_its_errors():
    scene = make_scene({"shape": "cross", "colour": "blue", "size": "large", "position": "top"})
    assert scene.captions == ["a large blue cross on the top"]
    with pytest.raises(ValueError, match="^colour: 'pink' is not allowed; allowed red, green, blue, yellow"):
        make_scene({"shape": "cross", "colour": "pink", "size": "large", "position": "top"})


def test_vocabulary_holds_every_value_and_distractors():
    words = default_vocabulary()
    assert all(v in words for values in ATTRIBUTES.values() for v in values) and len(set(words)) == len(words)
    assert set(MOTIONS) <= set(default_vocabulary(video=True)) and "purple" in words


def test_tokens_end_with_eos_not_id_two():
    ids = tokenize(["a red circle", "red"])
    assert EOS != 2 and ids[0, 4] == EOS and ids[1, 2] == EOS and (ids[:, 0] == 1).all()
    with pytest.raises(ValueError, match="^texts: "):
        tokenize([" ".join(["red"] * 20)])


def test_metric_definitions():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 6))
    assert trustworthiness(x, x.copy()) == pytest.approx(1.0)
    y = rng.normal(size=(80, 3))
    unit = lambda a: a / np.linalg.norm(a, axis=1, keepdims=True)  # noqa: E731
    assert trustworthiness(x, y) == pytest.approx(sk_trustworthiness(unit(x), unit(y), n_neighbors=10))
    assert trustworthiness(x, 3 * x) == pytest.approx(1.0)         # scale-free: a cosine notion
    assert reconstruction_cosine(x, 2 * x) == pytest.approx(1.0) and reconstruction_cosine(x, -x) == pytest.approx(-1)
    assert sparsity(np.array([[0, 1, 2], [0, 0, 3.0]])) == 1.5
    attrs = [{"colour": c, "shape": s} for c in ("red", "blue") for s in ("circle", "square")] * 5
    vocab = ["red", "blue", "circle", "square"]
    onehot = np.array([[a["colour"] == w or a["shape"] == w for w in vocab] for a in attrs], float)
    assert triplet_agreement(onehot, attrs) == 1.0
    assert concept_attribute_agreement(onehot, vocab, attrs) == {"colour": 1.0, "shape": 1.0}
    assert concept_attribute_agreement(onehot[:, [1, 0, 3, 2]], vocab, attrs) == {"colour": 0.0, "shape": 0.0}


def test_zero_shot_prompts_and_accuracy():
    prompts = zero_shot_prompts()
    assert prompts["colour"][0] == "a red object" and prompts["position"][0] == "an object on the left"
    assert prompts["shape"][2] == "a triangle" and zero_shot_prompts(True)["motion"][1] == "an object moving rightward"
    attrs = [{"size": "small"}, {"size": "large"}, {"size": "large"}]
    text = {"size": np.array([[1.0, 0.0], [0.0, 1.0]])}
    assert zero_shot_accuracy(np.array([[1, 0.1], [0.2, 1], [1, 0.0]]), attrs, text) == {"size": 2 / 3}


def test_similarity_spearman_is_one_for_attribute_counting_codes():
    from core.grace.metrics import similarity_spearman

    attrs = [{"colour": c, "shape": s} for c in ("red", "blue", "green") for s in ("circle", "square")] * 10
    vocab = ["red", "blue", "green", "circle", "square"]
    onehot = np.array([[a["colour"] == w or a["shape"] == w for w in vocab] for a in attrs], float)
    assert similarity_spearman(onehot, attrs) == pytest.approx(1.0)       # cosine = shared / 2
    noise = np.random.default_rng(0).random(onehot.shape)
    assert similarity_spearman(noise, attrs) < 0.2


def test_distractor_share_counts_mass_on_unused_words():
    from core.grace.metrics import distractor_share

    codes = np.array([[3.0, 1.0], [0.0, 0.0]])
    assert distractor_share(codes, ["red", "purple"]) == 0.25 and distractor_share(codes, ["red", "blue"]) == 0.0


def test_projection_axes_are_orthonormal_and_lda_separates():
    from core.grace.concept_map import biplot, projection_axes

    rng = np.random.default_rng(0)
    labels = np.repeat(["a", "b", "c"], 50)
    z = rng.normal(size=(150, 6)) * [5, 5, 1, 1, 1, 1]         # large nuisance variance on axes 0-1
    z[:, 3] += np.repeat([-2.0, 0.0, 2.0], 50)                  # the classes differ along axis 3 only
    for method in ("pca", "lda"):
        axes = projection_axes(z, labels, method)
        assert axes.shape == (2, 6) and np.allclose(axes @ axes.T, np.eye(2), atol=1e-8)
    assert abs(projection_axes(z, labels, "lda")[0, 3]) > 0.9 and abs(projection_axes(z, None, "pca")[0, 3]) < 0.3
    assert projection_axes(z, labels[:100].tolist() + ["a"] * 50, "lda").shape == (2, 6)
    xy, ends = biplot(z, np.eye(6), projection_axes(z, None, "pca"))
    assert np.linalg.norm(ends, axis=1).max() == pytest.approx(0.95 * np.abs(xy).max())
    with pytest.raises(ValueError, match="^method: "):
        projection_axes(z, labels, "tsne")


@pytest.mark.parametrize("delay", [0.05, 0.1, 0.3])
def test_the_model_builds_while_another_thread_imports_transformers(delay):
    """The app's warm-up thread imports transformers while a page may build the CLIP (a real race: with
    `from transformers import CLIPModel` each of these delays failed with "cannot import name")."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import importlib, threading, time\n"
            "from core.grace.clip import TinyCLIP\n"
            "t = threading.Thread(target=importlib.import_module, args=('transformers.models.clip.modeling_clip',))\n"
            f"t.start(); time.sleep({delay})\n"
            "print(type(TinyCLIP().clip).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[3], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "CLIPModel", out.stderr[-2000:]
