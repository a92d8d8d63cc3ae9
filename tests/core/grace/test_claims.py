"""The paper's claims on the shipped small CLIP, measured afresh on held-out scenes."""

import numpy as np
import pytest

from core.grace import embed_images, load_model, make_scenes
from core.grace.compare import TEST_SEED, compare
from core.grace.ship import load_shipped
from core.grace.train_clip import evaluate

pytestmark = pytest.mark.claim


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def comparison(model):
    return {row["method"]: row for row in compare(model).table}


def test_the_small_clip_is_worth_decomposing(model):
    accuracy = evaluate(model, n=1000, seed=4242)          # scenes and clips never seen in training
    assert accuracy["image/colour"] >= 0.9 and accuracy["image/shape"] >= 0.9, accuracy
    assert set(accuracy) == {"image/shape", "image/colour", "image/size", "image/position", "video/shape",
                             "video/colour", "video/size", "video/motion"}
    assert min(accuracy.values()) > 0.5                    # every attribute well above chance (<= 0.5)


def test_grace_concepts_agree_with_the_true_attributes(comparison):
    assert comparison["GRACE"]["concept-attribute agreement"] >= 0.8


def test_grace_beats_splice_on_geometry_at_matched_sparsity(comparison):
    grace, splice = comparison["GRACE"], comparison["SpLiCE"]
    assert abs(grace["L0"] - splice["L0"]) <= 0.5
    assert grace["trustworthiness"] > splice["trustworthiness"]
    assert grace["triplet agreement"] > splice["triplet agreement"]


def test_reconstructions_keep_zero_shot_accuracy(comparison):
    assert comparison["GRACE"]["zero-shot (mean)"] >= 0.9 * comparison["raw embeddings"]["zero-shot (mean)"]


def test_shipped_decompositions_match_the_shipped_model(model):
    shipped, doc = load_shipped()
    scenes = make_scenes(len(shipped["image"]["test_embeddings"]), TEST_SEED)
    assert np.allclose(shipped["image"]["test_embeddings"], embed_images(model, scenes.images), atol=1e-5)
    rows = {r["method"]: r for r in doc["tables"]["image"]}
    codes = shipped["image"]["GRACE"].encode(shipped["image"]["test_embeddings"])
    assert np.mean((codes > 1e-6).sum(1)) == pytest.approx(rows["GRACE"]["L0"], abs=1e-6)
