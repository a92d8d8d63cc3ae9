"""Digits, shapes, colour palettes and organ volumes: the inputs and what is done with them."""

import numpy as np
import pytest
import scipy.sparse as sp

from core.geto_lp import (SHAPES, barycenter, bin_centres, colour_histogram, digit_image, isosurface, mass_level,
                          organ_volume, scene_image, shape_image, transfer_palette)


def test_digits_are_upsampled_histograms_that_keep_their_layout():
    small, big = digit_image(1, 8), digit_image(1, 24)
    assert small.shape == (8, 8) and big.shape == (24, 24)
    assert small.sum() == pytest.approx(1.0) and big.sum() == pytest.approx(1.0) and big.min() >= 0
    # A "1" is a vertical stroke: most mass in the middle columns at both resolutions.
    for image in (small, big):
        n = image.shape[1]
        assert image[:, n // 4: 3 * n // 4].sum() > 0.7
    with pytest.raises(ValueError, match="^digit: "):
        digit_image(10)


@pytest.mark.parametrize("name", SHAPES)
def test_shapes_have_mass_one_and_are_centred(name):
    image = shape_image(name, 20)
    rows, cols = np.indices(image.shape) + 0.5
    assert image.sum() == pytest.approx(1.0) and image.min() >= 0
    assert (image * cols).sum() == pytest.approx(10.0, abs=0.6)  # every shape is centred left-right


def test_ring_and_disk_barycenter_sits_between_their_radii():
    disk, ring = shape_image("disk", 16), shape_image("ring", 16)
    result = barycenter(np.stack([disk, ring]))
    rows, cols = np.indices((16, 16)) + 0.5
    radius = np.hypot(rows - 8, cols - 8)
    mean_r = [(h * radius).sum() for h in (disk, ring, result.barycenter)]
    assert mean_r[0] < mean_r[2] < mean_r[1]


def test_scenes_are_seeded_and_have_their_own_palettes():
    a, b = scene_image("sea", 32, seed=4), scene_image("sea", 32, seed=4)
    assert np.array_equal(a, b) and not np.array_equal(a, scene_image("sea", 32, seed=5))
    assert a.mean(axis=(0, 1))[2] > a.mean(axis=(0, 1))[0]  # the sea is blue
    sunset = scene_image("sunset", 32, seed=4)
    assert sunset.mean(axis=(0, 1))[0] > sunset.mean(axis=(0, 1))[2]


def test_colour_histogram_counts_pixels_in_their_bins():
    image = np.zeros((2, 2, 3))
    image[0, 0] = (0.9, 0.1, 0.1)
    hist = colour_histogram(image, 4)
    assert hist.sum() == pytest.approx(1.0)
    assert hist[0, 0, 0] == 0.75 and hist[3, 0, 0] == 0.25
    with pytest.raises(ValueError, match="^image: "):
        colour_histogram(image * 2, 4)


def test_identity_plan_changes_nothing_and_the_barycentric_transfer_moves_the_mean():
    bins = 6
    images = [scene_image("sunset", 40, 1), scene_image("forest", 40, 1)]
    palettes = np.stack([colour_histogram(im, bins) for im in images])
    identity = sp.diags(palettes[0].reshape(-1))
    assert np.allclose(transfer_palette(images[0], identity, bins), images[0], atol=1e-12, rtol=0)

    result = barycenter(palettes, spacing=1 / bins, return_plans=True)
    moved = transfer_palette(images[0], result.plans[0], bins)
    centres = bin_centres(bins)
    # Each pixel moves by T(i) - y_i, so the mean colour moves from the palette's mean to the barycenter's.
    before, after = images[0].reshape(-1, 3).mean(0), moved.reshape(-1, 3).mean(0)
    source_mean, target = palettes[0].reshape(-1) @ centres, result.barycenter.reshape(-1) @ centres
    assert after == pytest.approx(before - source_mean + target, abs=2e-3)  # up to clipping at the cube
    assert np.linalg.norm(after - target) < np.linalg.norm(before - target)


def test_organs_are_seeded_patients():
    a, b = organ_volume(10, seed=1), organ_volume(10, seed=1)
    assert np.array_equal(a, b) and a.sum() == pytest.approx(1.0) and a.min() >= 0
    assert np.abs(a - organ_volume(10, seed=2)).sum() > 0.2


def test_isosurface_of_an_ellipsoid_has_its_axes_in_array_order():
    idx = np.indices((24, 24, 24)) - 11.5
    inside = (idx[0] / 10) ** 2 + (idx[1] / 6) ** 2 + (idx[2] / 4) ** 2 < 1
    surface = isosurface(inside.astype(float), mass=0.999)
    extent = surface.vertices.max(0) - surface.vertices.min(0)
    assert extent == pytest.approx([20, 12, 8], abs=1.5)
    assert surface.faces.shape[1] == 3 and surface.faces.max() < len(surface.vertices)
    assert mass_level(np.array([4.0, 3.0, 2.0, 1.0]), 0.65) == 3.0
