"""app/ship_pictures.py: pictures rendered at the measured size by plotly's code, the folder rewritten whole."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from app import ship_pictures


def write_spec(folder, fp, title):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{fp}.json").write_text(go.Figure(go.Bar(x=["a", "b"], y=[2, 1]), layout=dict(title=title)).to_json())
    np.savez_compressed(folder / f"{fp}.npz", np.array([len(title) + 0.5]))   # capture's floats of the figure


def test_a_picture_is_plotly_svg_at_the_size_measured(tmp_path):
    write_spec(tmp_path, "f" * 32, "sized")
    svg = ship_pictures.render(tmp_path / ("f" * 32 + ".json"), 321, 123).decode()
    assert svg.startswith("<svg") and 'width="321"' in svg and 'height="123"' in svg and "sized" in svg


def test_shipping_pages_keeps_the_others_and_drops_stale_pictures(tmp_path, monkeypatch):
    out = tmp_path / "pictures"
    out.mkdir()
    keep, stale = "k" * 32, "s" * 32
    for name, text in ((keep, "kept"), (stale, "stale")):
        (out / f"{name}.svg").write_text(f"<svg>{text}</svg>")
        np.savez_compressed(out / f"{name}.npz", np.array([len(text) + 0.25]))
    (out / "pages.json").write_text(json.dumps({"mcr2": [keep], "class_il": [stale]}))

    def capture_sizes(pages, folder):        # the browser's part: class_il now draws two new figures
        assert pages == ("class_il",)
        write_spec(folder, "a" * 32, "one")
        write_spec(folder, "b" * 32, "two")
        return {"class_il": [{"fp": "a" * 32, "width": 200, "height": 100},
                             {"fp": "b" * 32, "width": 300, "height": 150}]}

    monkeypatch.setattr(ship_pictures, "capture_sizes", capture_sizes)
    monkeypatch.setattr(ship_pictures, "render", lambda spec, w, h: f'<svg width="{w}">{spec.stem}</svg>'.encode())
    manifest = ship_pictures.ship(("class_il",), out)
    assert manifest == {"class_il": ["a" * 32, "b" * 32], "mcr2": [keep]}
    assert json.loads((out / "pages.json").read_text()) == manifest
    assert sorted(p.stem for p in out.glob("*.svg")) == sorted(["a" * 32, "b" * 32, keep])   # the stale one gone
    assert (out / ("b" * 32 + ".svg")).read_text() == f'<svg width="300">{"b" * 32}</svg>'
    assert (out / f"{keep}.svg").read_text() == "<svg>kept</svg>"
    # each picture ships with the floats it is matched by: the kept one's as they were, the new ones' as captured
    assert sorted(p.stem for p in out.glob("*.npz")) == sorted(["a" * 32, "b" * 32, keep])
    assert np.load(out / f"{keep}.npz")["arr_0"].tolist() == [4.25]
    assert np.load(out / ("a" * 32 + ".npz"))["arr_0"].tolist() == [3.5]


def test_an_unknown_page_is_refused_and_changes_nothing(tmp_path):
    out = tmp_path / "pictures"
    out.mkdir()
    (out / "pages.json").write_text("{}")
    with pytest.raises(ValueError, match="pages: \\['nope'\\].*allowed"):
        ship_pictures.ship(("nope",), out)
    assert [p.name for p in out.iterdir()] == ["pages.json"]


class FlakyRenderer:
    """plotly.io.to_image that fails ``failures`` times with ``error`` before it draws."""

    def __init__(self, failures, error):
        self.failures, self.error, self.calls = failures, error, 0

    def __call__(self, fig, format, width, height):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return f'<svg width="{width}" height="{height}"></svg>'.encode()


NOT_READY = RuntimeError("ReferenceError: kaleido_scopes is not defined\n    at <anonymous>:1:26")


def test_a_tab_that_was_not_ready_is_asked_again(tmp_path, monkeypatch):
    import plotly.io as pio

    write_spec(tmp_path, "f" * 32, "sized")
    flaky = FlakyRenderer(ship_pictures.RENDER_TRIES - 1, NOT_READY)
    monkeypatch.setattr(pio, "to_image", flaky)
    assert ship_pictures.render(tmp_path / ("f" * 32 + ".json"), 321, 123) == b'<svg width="321" height="123"></svg>'
    assert flaky.calls == ship_pictures.RENDER_TRIES


@pytest.mark.parametrize("failures, error, calls", [
    (99, NOT_READY, ship_pictures.RENDER_TRIES),                        # never ready: the last error is raised
    (1, RuntimeError("ReferenceError: Plotly is not defined"), 1),       # any other error: raised at once
    (1, ValueError("Invalid property specified for object of type plotly.graph_objs.Bar"), 1),
])
def test_other_errors_and_a_tab_never_ready_are_raised(tmp_path, monkeypatch, failures, error, calls):
    import plotly.io as pio

    write_spec(tmp_path, "f" * 32, "sized")
    flaky = FlakyRenderer(failures, error)
    monkeypatch.setattr(pio, "to_image", flaky)
    with pytest.raises(type(error), match=str(error).split("\n")[0]):
        ship_pictures.render(tmp_path / ("f" * 32 + ".json"), 321, 123)
    assert flaky.calls == calls
