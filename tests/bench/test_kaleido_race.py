"""bench/kaleido_race.py counts kaleido's calls and the renders that failed, with one try and with render's."""

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from app import ship_pictures
from bench import kaleido_race


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "figure.json"
    path.write_text(go.Figure(go.Bar(x=["a"], y=[1])).to_json())
    return path


def every_other_call_not_ready(monkeypatch):
    calls = [0]

    def to_image(*args, **kwargs):
        calls[0] += 1
        if calls[0] % 2:
            raise RuntimeError("ReferenceError: " + ship_pictures.NOT_READY)
        return b"<svg></svg>"

    monkeypatch.setattr(pio, "to_image", to_image)
    return to_image


def test_one_try_fails_where_the_tab_was_not_ready_and_render_asks_again(monkeypatch, spec):
    fake = every_other_call_not_ready(monkeypatch)
    one = kaleido_race.count(4, spec, 1)           # calls 1-4: the 1st and 3rd fail
    assert one == {"tries_allowed": 1, "renders": 4, "kaleido_calls": 4, "failed": 2}
    again = kaleido_race.count(4, spec, 4)          # each render: a failed call, then a drawn one
    assert again == {"tries_allowed": 4, "renders": 4, "kaleido_calls": 8, "failed": 0}
    assert ship_pictures.RENDER_TRIES == 4 and pio.to_image is fake   # both restored


def test_another_error_is_not_counted_as_the_race(monkeypatch, spec):
    monkeypatch.setattr(pio, "to_image", lambda *a, **k: (_ for _ in ()).throw(ValueError("bad figure")))
    with pytest.raises(ValueError, match="bad figure"):
        kaleido_race.count(2, spec, 4)


def test_bad_input_names_the_fields():
    with pytest.raises(SystemExit, match="renders: 0, busy: 1; allowed renders >= 1"):
        kaleido_race.main(["--renders", "0", "--busy", "1"])
