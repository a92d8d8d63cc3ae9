"""The shipped view is what the shipped checkpoints compute."""

import numpy as np

from core.common.seeding import derive_seed
from core.lvqmark import DetectConfig, detect, load_series, load_view, load_watermarker, locality_map, make_windows
from core.lvqmark.ship import SEED, VIEW_CONFIG


def test_a_shipped_detection_row_and_locality_map_are_recomputed_from_the_checkpoints():
    view = load_view("finance")
    for encoder in ("local", "global"):
        system = load_watermarker("finance", encoder)
        d = detect(system, DetectConfig(**VIEW_CONFIG), attacks=("crop",), strengths=(0.3,),
                   seed=derive_seed(SEED, "view"))
        row = next(i for i, r in enumerate(view.rows) if r == ("crop", 0.3))
        np.testing.assert_allclose(d.z_wm[0], view.get(encoder, "z_wm")[0], rtol=1e-5)
        np.testing.assert_allclose(d.z_nowm[1], view.get(encoder, "z_nowm")[row], rtol=1e-5)
        np.testing.assert_allclose(d.drift[1], view.get(encoder, "drift")[row], atol=1e-6)
        m = locality_map(system.tokenizer, make_windows(load_series("finance")).test[0])
        np.testing.assert_array_equal(m.changed, view.get(encoder, "locality_changed"))
