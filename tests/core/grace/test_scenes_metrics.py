"""Scenes, captions, vocabulary and the metric definitions."""

import numpy as np
import pytest
from sklearn.manifold import trustworthiness as sk_trustworthiness

from core.grace import default_vocabulary, make_scene, make_scenes
from core.grace.clip import EOS, UNK, tokenize
from core.grace.metrics import (concept_attribute_agreement, reconstruction_cosine, sparsity, triplet_agreement,
                                trustworthiness, zero_shot_accuracy, zero_shot_prompts)
from core.grace.scenes import ATTRIBUTES, CENTRE, MAX_CLUTTER, MOTIONS, P_TYPICAL, RADIUS, RGB, TYPICAL


def test_scenes_are_seeded_and_shaped():
    a, b = make_scenes(20, 3), make_scenes(20, 3)
    assert a.images.shape == (20, 32, 32, 3) and a.images.dtype == np.uint8
    assert np.array_equal(a.images, b.images) and a.captions == b.captions
    assert not np.array_equal(a.images, make_scenes(20, 4).images)
    clips = make_scenes(5, 3, video=True)
    assert clips.images.shape == (5, 8, 32, 32, 3) and set(clips.attributes[0]) == {"shape", "colour", "size", "motion"}


def test_captions_name_the_true_attributes_and_the_pixels_show_them():
    scenes = make_scenes(50, 0)
    palette = np.array(list(RGB.values()), float)
    shown = []
    for image, text, attrs, clutter, hidden in zip(scenes.images, scenes.captions, scenes.attributes, scenes.clutter,
                                                   scenes.hidden):
        texture = "striped " if hidden["texture"] == "striped" else ""
        assert text.startswith(f"a {attrs['size']} {texture}{attrs['colour']} {attrs['shape']} on the {attrs['position']}")
        assert 1 <= len(clutter) <= MAX_CLUTTER and text.count("a tiny") == len(clutter)
        # Around the main object's centre its colour is the most common palette colour, unless clutter hides it.
        row, col = CENTRE[attrs["position"]]
        r = int(RADIUS[attrs["size"]])
        window = image[max(row - r, 0): row + r, max(col - r, 0): col + r].reshape(-1, 3).astype(float)
        dist = ((window[:, None] - palette[None]) ** 2).sum(-1)
        near = dist.min(1) < 60**2
        shown.append(list(RGB)[np.bincount(dist.argmin(1)[near], minlength=len(RGB)).argmax()] == attrs["colour"])
    assert 0.85 <= np.mean(shown) < 1.0            # clutter and occlusion hide a few main objects, as intended


def test_the_world_is_correlated_cluttered_and_half_striped():
    scenes = make_scenes(3000, 11)
    typical = np.mean([a["colour"] == TYPICAL[a["shape"]] for a in scenes.attributes])
    assert abs(typical - P_TYPICAL) < 0.03                              # colour tied to shape 70% of the time
    striped = np.mean([h["texture"] == "striped" for h in scenes.hidden])
    assert abs(striped - 0.5) < 0.03
    counts = np.bincount([len(c) for c in scenes.clutter], minlength=MAX_CLUTTER + 1)
    assert counts[0] == 0 and (counts[1:] > 800).all()                   # two to four objects in all
    assert {v for a in scenes.attributes for v in a.values()} == {v for vs in ATTRIBUTES.values() for v in vs}


def test_stripes_are_dark_bands_inside_the_object():
    attrs = {"shape": "square", "colour": "yellow", "size": "large", "position": "left"}
    solid = make_scene(attrs, seed=3).images[0].astype(float)
    striped = make_scene(attrs, seed=3, texture="striped").images[0].astype(float)
    rows = striped[12:20, 8].sum(1)                                     # a column through the square
    assert solid[12:20, 8].sum(1).min() > 400 and rows.min() < 0.5 * rows.max()
    assert "striped" in make_scene(attrs, seed=3, texture="striped").captions[0]
    assert "striped" not in default_vocabulary() and "striped" not in default_vocabulary(video=True)


def test_clips_move_in_their_direction():
    clips = make_scenes(12, 1, video=True)
    assert all(1 <= len(c) <= MAX_CLUTTER for c in clips.clutter)
    # Without clutter (which may share the colour), the main object's pixels move as its motion says.
    for attrs in clips.attributes:
        frames = make_scene(attrs, None, seed=4, video=True).images[0]
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
    with pytest.raises(ValueError, match="^texture: 'dotted' is not allowed; allowed solid, striped"):
        make_scene({"shape": "cross", "colour": "red", "size": "large", "position": "top"}, texture="dotted")
    with pytest.raises(ValueError, match="^second: colour 'pink' is not allowed"):
        make_scene({"shape": "cross", "colour": "red", "size": "large", "position": "top"},
                   {"shape": "ring", "colour": "pink"})
    two = make_scene({"shape": "ring", "colour": "orange", "size": "small", "position": "left"},
                     [{"shape": "diamond", "colour": "purple"}, {"shape": "circle", "colour": "red"}])
    assert two.captions == ["a small orange ring on the left with a tiny purple diamond and a tiny red circle"]


def test_vocabulary_holds_every_value_and_distractors():
    words = default_vocabulary()
    assert all(v in words for values in ATTRIBUTES.values() for v in values) and len(set(words)) == len(words)
    assert set(MOTIONS) <= set(default_vocabulary(video=True)) and "pink" in words and "purple" in words


def test_tokens_end_with_eos_not_id_two():
    ids = tokenize(["a red circle", "red"])
    assert EOS != 2 and ids[0, 4] == EOS and ids[1, 2] == EOS and (ids[:, 0] == 1).all()
    longest = make_scenes(400, 5).captions
    assert max(len(t.split()) for t in longest) <= ids.shape[1] - 2 and UNK not in tokenize(longest)
    with pytest.raises(ValueError, match="^texts: "):
        tokenize([" ".join(["red"] * 40)])


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
    attrs = [{"size": "small"}, {"size": "large"}, {"size": "medium"}]
    text = {"size": np.eye(3)}                                    # small, medium, large
    assert zero_shot_accuracy(np.array([[1, 0.1, 0], [0.2, 0, 1], [1, 0.0, 0]]), attrs, text) == {"size": 2 / 3}


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
    assert distractor_share(codes, ["red", "pink"]) == 0.25 and distractor_share(codes, ["red", "blue"]) == 0.0


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


def _world(n=120, seed=0):
    """Attributes, clutter and one-hot codes over their words: the decomposition a perfect reader would give."""
    scenes = make_scenes(n, seed)
    vocab = default_vocabulary()
    codes = np.array([[2.0 * (w in a.values()) + 1.0 * any(w in (c["shape"], c["colour"]) for c in clutter)
                       for w in vocab] for a, clutter in zip(scenes.attributes, scenes.clutter)])
    return scenes, vocab, codes


def test_object_recall_and_retrieval_against_a_perfect_and_a_relabelled_reader():
    from core.grace.metrics import concept_retrieval, object_concept_recall

    scenes, vocab, codes = _world()
    recall = object_concept_recall(codes, vocab, scenes.attributes, scenes.clutter)
    assert np.allclose(recall["main"], 1.0) and np.allclose(recall["precision"], 1.0)
    assert np.allclose(recall["clutter"], 1.0)                   # every scene has clutter; all its words are in the top K
    retrieval = concept_retrieval(codes, vocab, scenes.attributes, k=5)
    assert set(retrieval) == {v for vs in ATTRIBUTES.values() for v in vs} and min(retrieval.values()) == 1.0
    # The same codes under shuffled names: geometry unchanged, the named measures collapse.
    order = np.random.default_rng(0).permutation(len(vocab))
    shuffled = [vocab[i] for i in order]
    bad = object_concept_recall(codes, shuffled, scenes.attributes, scenes.clutter)
    assert bad["main"].mean() < 0.5 and np.mean(list(concept_retrieval(codes, shuffled, scenes.attributes, 5).values())) < 0.5
    # Hand-checked case: one scene, K = 4 main words + 2 clutter words, top 6 holds 3 main and 1 clutter word.
    attrs = [{"shape": "circle", "colour": "red", "size": "small", "position": "left"}]
    clutter = [[{"shape": "ring", "colour": "blue"}]]
    row = np.zeros((1, len(vocab)))
    for w, v in {"circle": 6, "red": 5, "small": 4, "ring": 3, "pink": 2, "dog": 1.5, "left": 1}.items():
        row[0, vocab.index(w)] = v
    one = object_concept_recall(row, vocab, attrs, clutter)
    assert one["main"][0] == 0.75 and one["clutter"][0] == 0.5 and one["precision"][0] == pytest.approx(4 / 6)


def test_neighbour_label_agreement_matches_a_brute_force_count():
    from core.grace.metrics import neighbour_label_agreement

    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 5))
    labels = rng.integers(0, 2, 60)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    sim = unit @ unit.T
    np.fill_diagonal(sim, -np.inf)
    nearest = np.argsort(-sim, axis=1)[:, :10]
    expected = (labels[nearest] == labels[:, None]).mean(1)
    assert np.allclose(neighbour_label_agreement(x, labels), expected)
    separated = x + 8 * labels[:, None]                             # two far-apart clusters: every neighbour agrees
    assert np.allclose(neighbour_label_agreement(separated - separated.mean(0), labels), 1.0)


def test_attribute_hits_average_to_the_agreement():
    from core.grace.metrics import attribute_hits

    scenes, vocab, codes = _world(80, 2)
    noisy = codes + np.random.default_rng(3).normal(0, 1.2, codes.shape)
    per_attribute = concept_attribute_agreement(noisy, vocab, scenes.attributes)
    assert attribute_hits(noisy, vocab, scenes.attributes).mean() == pytest.approx(np.mean(list(per_attribute.values())))


def test_scene_makers_refuse_a_bad_seed():
    with pytest.raises(ValueError, match="^seed: .*; allowed 0.."):
        make_scenes(2, seed=-1)
    attrs = {"shape": "circle", "colour": "red", "size": "large", "position": "left"}
    with pytest.raises(ValueError, match="^seed: .*; allowed 0.."):
        make_scene(attrs, seed="0")
