"""A first view's figures drawn as shipped pictures, then as interactive charts a moment later.

Why: plotly's browser code (4.7 MB) takes about a second of the browser's main thread to evaluate
on two cores, and Streamlit's front end holds back every element of a render until the lazily
loaded chart code is ready. So a picture drawn beside even one chart still appears only after
plotly's code has evaluated: every figure of a first view is a picture, and plotly's code is not
preloaded for it. A bare page with one trivial plotly chart already takes about the 2 s budget on two
cores, so a first view that waits for plotly cannot meet it however little else it does.

How: :func:`app.ui.plots.show` asks :func:`picture_for` first. On a page whose first view ships pictures
(``assets/pictures/pages.json``), while the session has not had an interactive view (:func:`interactive` is
false), a figure that a shipped picture draws is drawn as that picture instead of the chart, and the shell
preloads no plotly code for the view. A picture ``assets/pictures/<name>.svg`` ships with the floats of the
figure it was rendered from (``<name>.npz``); its name is the hash of everything the figure draws but its floats
(the template by its JSON), then a short hash of the floats (:func:`fingerprint`). A figure matches a picture
(:func:`match`) when the first hash is equal and every float is within a hundred-thousandth of its array's largest
magnitude (:func:`same_numbers`; far under a pixel). Matching by tolerance, not by a hash of rounded floats,
because a CPU's last bits cross any rounding step somewhere: numpy's SIMD float32 ``log10`` differs between
CPUs by an ulp, so a heatmap of its values can land on either side of a rounding step, and a Laplacian
eigenvalue of 1e-16 on one machine can be -3e-16 on another.
The pictures are rendered by plotly's own code (kaleido) at the size each chart has in a 1280 px wide browser
(``python -m app.ship_pictures``), so a picture and its chart look the same. Once the browser has shown a view
with pictures, a one-shot timer (:func:`upgrade_soon`, a fragment with ``run_every``) reruns the page with
interactive charts. A figure no picture matches (another seed, a live run, a changed figure not yet
re-shipped) is a chart at once, so a picture can never show something other than what the chart would.

A first view is also only the page's first screen: a page returns where :func:`first_screen` says so, below what
a 1280 x 900 window shows, and the upgrade draws the rest; the browser then paints the first figure without
first laying out the whole page.

The switch leaves no gap. On a page that ships pictures every figure is drawn in a slot of its own
(:func:`draw`, a keyed container that app/ui/style.py lays out as one grid cell): the first view puts
the picture there; the next run (the upgrade) keeps the same picture as the slot's first element and
adds the chart as its second, on top of it, and the page's CSS hides the picture once plotly shows
the chart; later runs put an empty placeholder first, so the chart stays the slot's second element
and is updated in place, never redrawn from scratch. Without slots the picture's element would become
the chart's, which shows nothing until plotly's code has loaded and drawn it, leaving the figure blank
meanwhile; tests/e2e/test_pictures_browser.py watches every slot for such a gap.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
from pathlib import Path

from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:   # the shell imports this module: numpy and plotly only once a figure is drawn
    import plotly.graph_objects as go

ROOT = Path(__file__).resolve().parents[2]
PICTURES = ROOT / "assets" / "pictures"
INTERACTIVE = "paperlab_interactive"    # session state: this session's views draw charts, not pictures
ELIGIBLE = "paperlab_pictures_eligible"  # session state: the current run's page ships pictures, not yet upgraded
DRAWN = "paperlab_pictures_drawn"       # session state: the fingerprints the current run drew as pictures
CAPTURE = "PAPERLAB_PICTURE_CAPTURE"    # environment: a folder that receives every drawn figure (ship time)
ARMED = "paperlab_pictures_upgrade_armed"   # session state: the upgrade's fragment has run inline once
COUNT = "paperlab_pictures_captured"   # session state: figures captured in the current run
SLOTS = "paperlab_pictures_slots"       # session state: the current run's page draws its figures in slots
SHOWN = "paperlab_pictures_shown"       # session state: the fingerprints the previous run of this page drew
SLOT_COUNT = "paperlab_pictures_slot_count"  # session state: unkeyed slots opened in the current run
PAGE = "paperlab_pictures_page"         # session state: the URL path of the current run's page
SLOT = "paperlab-fig-"                  # the slots' key prefix (their CSS class is st-key-<key>)
UPGRADE_AFTER_S = 0.5
STRUCTURE = 24      # hex digits of a picture's name that hash what it draws but its floats
ROUNDING = 1e6      # the name's last digits hash each float array in steps of 1/ROUNDING of its largest magnitude
TOLERANCE = 1e-5    # a figure matches a picture when its floats are this close (of each array's largest magnitude)


def _feed(h, obj, numbers: list) -> None:
    """Hash ``obj`` (a figure's plotly JSON) into ``h`` without its floats, keys sorted, and append each float
    array (and each float, as an array of one) to ``numbers`` in the order met: what is drawn, apart from where."""
    import numpy as np

    if isinstance(obj, dict) and "bdata" in obj and "dtype" in obj:   # plotly's typed array: its numbers
        array = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]))
        shape = obj.get("shape")
        _feed(h, array.reshape([int(n) for n in str(shape).split(",")]) if shape else array, numbers)
    elif isinstance(obj, dict):
        h.update(b"{%d" % len(obj))
        for key in sorted(obj):
            h.update(str(key).encode() + b":")
            _feed(h, obj[key], numbers)
        h.update(b"}")
    elif isinstance(obj, np.ndarray) and obj.dtype.kind == "f":
        h.update(b"a%s" % str(obj.shape).encode())
        numbers.append(obj.astype(np.float64))
    elif isinstance(obj, np.ndarray) and obj.dtype.kind in "iub":
        h.update(b"a%sint" % str(obj.shape).encode())
        h.update(np.ascontiguousarray(obj, dtype=np.int64).tobytes())
    elif (isinstance(obj, (list, tuple)) and obj
          and all(isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)) for v in obj)):
        _feed(h, np.asarray(obj), numbers)          # a list of numbers draws as the array does
    elif isinstance(obj, (list, tuple, np.ndarray)):
        h.update(b"[%d" % len(obj))
        for value in obj:
            _feed(h, value, numbers)
        h.update(b"]")
    elif isinstance(obj, (bool, np.bool_)) or obj is None:
        h.update(b"b" + repr(obj).encode())
    elif isinstance(obj, (int, np.integer)):
        h.update(b"i" + str(int(obj)).encode())
    elif isinstance(obj, (float, np.floating)):
        h.update(b"f")
        numbers.append(np.array([float(obj)]))
    else:
        h.update(b"s" + str(obj).encode() + b"\0")


def describe(fig: go.Figure) -> tuple[str, list]:
    """``fig`` as (the hash of everything it draws but its floats, its floats as float64 arrays in order)."""
    spec = fig.to_plotly_json()
    layout = dict(spec.get("layout", {}))
    template = layout.pop("template", None)
    h = hashlib.sha256()
    # the template is most of a figure's JSON and holds no data arrays: its JSON text is hashed as it is
    h.update(json.dumps(template, sort_keys=True, default=str).encode())
    numbers: list = []
    _feed(h, {"data": spec.get("data", []), "layout": layout}, numbers)
    return h.hexdigest()[:STRUCTURE], numbers


def _digest(numbers: list) -> str:
    """A short hash of ``numbers``, each array in steps of 1/ROUNDING of its largest finite magnitude: a name."""
    import numpy as np

    h = hashlib.sha256()
    for values in numbers:
        finite = np.isfinite(values)
        scale = float(np.abs(values[finite]).max()) if finite.any() else 0.0
        steps = np.where(finite, np.round(values / (scale or 1.0) * ROUNDING), values) + 0.0   # -0.0 is 0.0
        h.update(np.ascontiguousarray(steps).tobytes())
    return h.hexdigest()[:32 - STRUCTURE]


def fingerprint(fig: go.Figure) -> str:
    """A figure's picture name: the hash of what it draws but its floats (:func:`describe`), then a short hash of
    its floats. Names stay apart where figures do; a picture is matched by :func:`match`, not by name alone."""
    return _name(*describe(fig))


def _name(structure: str, numbers: list) -> str:
    return structure + _digest(numbers)


def same_numbers(ours: list, theirs: list) -> bool:
    """Whether two figures' floats draw the same: equal shapes, NaN and infinities in the same places, and every
    finite value within TOLERANCE of its array's largest magnitude (a CPU's last bits, float32's included, and a
    value that is zero up to rounding on one CPU and -3e-16 on another, are far inside it)."""
    import numpy as np

    if len(ours) != len(theirs):
        return False
    for a, b in zip(ours, theirs):
        if a.shape != b.shape:
            return False
        fa, fb = np.isfinite(a), np.isfinite(b)
        if not (np.array_equal(fa, fb) and np.array_equal(a[~fa], b[~fb], equal_nan=True)):
            return False
        if fa.any():
            scale = max(float(np.abs(a[fa]).max()), float(np.abs(b[fb]).max()))
            if float(np.abs(a[fa] - b[fb]).max()) > TOLERANCE * scale:
                return False
    return True


def match(fig: go.Figure, names) -> str | None:
    """The name among ``names`` (shipped pictures) of the picture that draws ``fig``, or None."""
    structure, numbers = describe(fig)
    for name in sorted(names):
        if name.startswith(structure):
            stored = _numbers(name)
            if stored is not None and same_numbers(numbers, stored):
                return name
    return None


@functools.lru_cache(maxsize=256)
def _numbers(name: str) -> list | None:
    """The floats of the figure the picture ``name`` was rendered from (``<name>.npz``; None without one)."""
    import numpy as np

    path = PICTURES / f"{name}.npz"
    if not path.is_file():
        return None
    with np.load(path) as stored:
        return [stored[f"arr_{i}"] for i in range(len(stored.files))]


@functools.lru_cache(maxsize=1)
def manifest() -> dict[str, list[str]]:
    """Page (URL path) -> the fingerprints of its first view's figures, in drawing order, as shipped."""
    path = PICTURES / "pages.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


@functools.lru_cache(maxsize=1)
def shipped() -> frozenset[str]:
    """The fingerprints that have a picture in ``assets/pictures``."""
    return frozenset(p.stem for p in PICTURES.glob("*.svg")) if PICTURES.is_dir() else frozenset()


def first_view_pictures(url_path: str) -> bool:
    """Whether the page at ``url_path`` may be drawn from pictures now: pictures ship for it and this session has
    not had its interactive view yet."""
    return bool(manifest().get(url_path)) and not interactive()


@functools.lru_cache(maxsize=256)
def _svg(fp: str) -> str:
    return (PICTURES / f"{fp}.svg").read_text(encoding="utf-8")


def interactive() -> bool:
    """Whether this session's views draw charts (true once a view with pictures has been upgraded)."""
    return bool(st.session_state.get(INTERACTIVE, False)) or bool(os.environ.get(CAPTURE))


def picture_for(fig: go.Figure) -> str | None:
    """The fingerprint of the shipped picture to draw instead of ``fig``, or None to draw the chart (always on a
    page without pictures, which then pays nothing for fingerprints)."""
    if not st.session_state.get(ELIGIBLE):
        return None
    return match(fig, shipped())


def draw_picture(fp: str) -> None:
    """Draw the shipped picture ``fp`` at the container's width (the chart's own width at 1280 px)."""
    st.image(_svg(fp), width="stretch")
    st.session_state[DRAWN] = [*st.session_state.get(DRAWN, []), fp]


def slot_key(key: str | None) -> str:
    """The slot's container key: from the chart's key (stable across the runs of a fragment), else numbered."""
    if key is not None:
        return f"{SLOT}{key}"
    n = st.session_state.get(SLOT_COUNT, 0)
    st.session_state[SLOT_COUNT] = n + 1
    return f"{SLOT}{n}"


def draw(fig: go.Figure, key: str | None, chart) -> None:
    """Draw ``fig`` the way this run draws figures; ``chart()`` draws it as the interactive chart.

    On a page without pictures: the chart. On a page with pictures, in the figure's slot: its picture on a first
    view (:func:`picture_for`); on the run after one, the picture it showed with the chart on top (hidden by the
    page's CSS once the chart is drawn); else an empty placeholder and the chart.
    """
    if not st.session_state.get(SLOTS):
        chart()
        return
    with st.container(key=slot_key(key)):
        picture = picture_for(fig)
        if picture is not None:
            draw_picture(picture)
            return
        shown = st.session_state.get(SHOWN)
        fp = match(fig, shown) if shown else None
        if fp is not None:
            st.image(_svg(fp), width="stretch")    # the same element as the first view's: the browser keeps it
        else:
            st.empty()
        chart()


def capture(fig: go.Figure) -> str | None:
    """At ship time (``PAPERLAB_PICTURE_CAPTURE`` set): store ``fig``'s JSON and its floats (:func:`describe`)
    under its fingerprint and return the key of the container the chart is drawn in, from which the browser reads
    the chart's size."""
    folder = os.environ.get(CAPTURE)
    if not folder:
        return None
    import numpy as np

    structure, numbers = describe(fig)
    fp = _name(structure, numbers)
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / f"{fp}.json").write_text(fig.to_json(), encoding="utf-8")
    np.savez_compressed(Path(folder) / f"{fp}.npz", *numbers)     # what the picture is matched by
    n = st.session_state.get(COUNT, 0)
    st.session_state[COUNT] = n + 1     # a figure drawn twice on a page gets two containers
    return f"pic-{fp}-{n}"


def begin_run(url_path: str) -> bool:
    """Called by the shell before the page at ``url_path`` runs: nothing drawn as a picture yet in this run;
    returns whether it may draw any (:func:`first_view_pictures`, kept for the run's figures)."""
    previous = st.session_state.get(DRAWN) if st.session_state.get(PAGE) == url_path else None
    st.session_state[PAGE] = url_path
    st.session_state[SHOWN] = frozenset(previous or ())
    st.session_state[SLOTS] = bool(manifest().get(url_path)) or bool(os.environ.get(CAPTURE))
    st.session_state[ELIGIBLE] = first_view_pictures(url_path)
    st.session_state[DRAWN] = []
    st.session_state[COUNT] = st.session_state[SLOT_COUNT] = 0
    return st.session_state[ELIGIBLE]


def first_screen() -> bool:
    """Whether the page stops here, at the end of its first screen: a page calls it once, below what a
    1280 x 900 window shows, and returns when it is true.

    True on a session's first view drawn from pictures, and at ship time (whose capture is that view). The
    browser's main thread lays out every element a run sends before it paints the first picture (the figures:
    bench/results/HISTORY.md, "Served start-up"). The rest of the page comes with the run that makes the pictures
    interactive (:func:`upgrade_soon`), half a second after the browser shows them.
    """
    return bool(os.environ.get(CAPTURE)) or bool(st.session_state.get(ELIGIBLE))


def upgrade_soon() -> None:
    """Called by the shell after a page ran: if it ran as a first view drawn from pictures (its figures pictures, the
    page stopped at its first screen), rerun it whole and with charts once the browser shows it."""
    if not st.session_state.get(ELIGIBLE):
        return

    @st.fragment(run_every=UPGRADE_AFTER_S)
    def _upgrade():
        # the fragment's first call runs inline with the page; the next comes from the browser's timer
        if st.session_state.get(ARMED):
            st.session_state[ARMED] = False
            st.session_state[INTERACTIVE] = True
            st.rerun()
        st.session_state[ARMED] = True

    _upgrade()
