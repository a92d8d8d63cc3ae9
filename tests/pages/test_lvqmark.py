"""The lvqmark page through AppTest: the shipped z distributions, drift and locality map."""

import time

import numpy as np
import pytest

from core.lvqmark import DATASET_LABELS, load_view
from tests.pages import apptest


def open_page(**params):
    return apptest.open_page("lvqmark", timeout=60, **params)


def test_the_default_view_draws_the_shipped_z_and_the_locality_map():
    at = open_page()
    assert at.title[0].value == "Local VQ-VAE watermarks for time series"
    view = load_view("energy")
    row = view.rows.index(("crop", 0.3))
    figs = apptest.charts(at)
    traces = figs["chart-z"]["data"]
    attacked = [t for t in traces if t.get("name") == "not watermarked, attacked"]
    np.testing.assert_allclose(apptest.values(attacked[0]), view.get("local", "z_nowm")[row], rtol=1e-6)
    np.testing.assert_allclose(apptest.values(attacked[1]), view.get("global", "z_nowm")[row], rtol=1e-6)
    z = apptest.values(figs["chart-locality"]["data"][0], "z")
    np.testing.assert_array_equal(z == 2.0, view.get("local", "locality_changed").T)
    assert any(b.label == "Train the tokenizer" for b in at.button)
    tpr = at.table[0].value["TPR"].tolist()
    assert tpr[0].startswith(f"{view.get('local', 'tpr')[row]:.2f}")


def test_another_dataset_and_attack_from_the_url():
    at = open_page(dataset=DATASET_LABELS["fmri"], attack="insert", strength="0.05")   # links carry the labels
    assert not at.warning
    view = load_view("fmri")
    row = view.rows.index(("insert", 0.05))
    traces = apptest.charts(at)["chart-z"]["data"]
    wm = next(t for t in traces if t.get("name") == "watermarked, attacked")
    np.testing.assert_allclose(apptest.values(wm), view.get("local", "z_wm")[row], rtol=1e-6)


@pytest.mark.slow(reason="trains a tokenizer live through the page (about 20 s on 2 cores)")
def test_the_live_tokenizer_run_draws_its_locality_map():
    at = open_page()
    next(b for b in at.button if b.label == "Train the tokenizer").click().run()
    for _ in range(30):
        time.sleep(3)
        at.run()
        if any("Test reconstruction" in c.value for c in at.caption):
            break
    assert not at.exception
    z = apptest.values(apptest.charts(at)["chart-live-locality"]["data"][0], "z")
    window = load_view("energy").arrays["locality_window"].T
    assert ((z == 2.0) & ~window).sum() == 0 and (z == 2.0).any()     # a local tokenizer: changes only in-window
