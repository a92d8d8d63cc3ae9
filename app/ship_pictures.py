"""Render every system page's first-view figures as pictures: ``python -m app.ship_pictures``.

A server is started in capture mode (``PAPERLAB_PICTURE_CAPTURE``: :func:`app.ui.plots.show` stores each
figure's JSON under its fingerprint and draws the chart inside a container named after it); headless
Chromium (1280 x 900, the project's flags) opens each page as a first visitor does and reads the size of
every chart once all are drawn; kaleido then renders each figure with plotly's own code at that size as
an SVG into ``assets/pictures/<fingerprint>.svg`` next to the figure's floats (``<fingerprint>.npz``, what a
figure is matched by), and ``assets/pictures/pages.json`` lists each page's fingerprints in drawing order.
The folder is rewritten whole, so no stale picture survives.
Run it after changing anything a first view draws (tests/test_first_views.py fails until then). Needs the
dev requirements (playwright, kaleido) and Debian's chromium.

    python -m app.ship_pictures                 # every page
    python -m app.ship_pictures class_il mcr2   # those pages (the others' pictures are kept)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from app.catalog import SYSTEMS
from app.ui.pictures import CAPTURE, PICTURES

# the study's dashboard draws the study's live data, which no picture can know in advance
PAGES = tuple(s.key for s in SYSTEMS if s.built and s.key != "interestingness")
VIEWPORT = {"width": 1280, "height": 900}
CHART = ".js-plotly-plot .main-svg"
BOXES = "[class*='st-key-pic-']"
# each capture box's fingerprint and the drawn chart's size in CSS pixels
READ_BOXES = """() => Array.from(document.querySelectorAll("[class*='st-key-pic-']")).map(box => {
    const key = Array.from(box.classList).find(c => c.startsWith('st-key-pic-')).slice('st-key-pic-'.length).split('-')[0];
    const plot = box.querySelector('.js-plotly-plot');
    return {fp: key, width: plot ? plot.clientWidth : 0, height: plot ? plot.clientHeight : 0};
})"""


def capture_sizes(pages: tuple[str, ...], folder: Path) -> dict[str, list[dict]]:
    """Page -> its first view's charts (fingerprint, width, height), read in a browser from a capturing server."""
    from bench.browser import browser, server

    sizes = {}
    with server(env={CAPTURE: str(folder), "PAPERLAB_WARM": "none"}) as (url, _proc), browser(**VIEWPORT) as new_page:
        for key in pages:
            page = new_page()
            try:
                page.goto(f"{url}/{key}", wait_until="commit", timeout=180_000)
                page.locator(CHART).first.wait_for(state="visible", timeout=180_000)
                page.wait_for_load_state("networkidle")
                page.wait_for_function(f"""() => {{
                    const boxes = document.querySelectorAll("{BOXES}");
                    return boxes.length > 0 && Array.from(boxes).every(b => b.querySelector('{CHART}'));
                }}""", timeout=180_000)
                page.wait_for_timeout(1000)      # the charts' own resize to their container
                charts = page.evaluate(READ_BOXES)
            finally:
                page.close()
            if not charts or any(c["width"] <= 0 or c["height"] <= 0 for c in charts):
                raise RuntimeError(f"{key}: a chart on its first view has no size: {charts}")
            sizes[key] = charts
            print(f"{key}: {len(charts)} charts", flush=True)
    return sizes


# kaleido 1.5.1 can send a figure to its tab before the tab's own scripts have run ("ReferenceError:
# kaleido_scopes is not defined"; CI failed on it once, and `python bench/kaleido_race.py` counts it with
# busy processes on every core). Nothing is drawn then and kaleido reloads the tab, so it is asked again.
NOT_READY = "kaleido_scopes is not defined"
RENDER_TRIES = 4


def render(spec_path: Path, width: int, height: int) -> bytes:
    """The figure stored at ``spec_path`` as plotly's SVG at ``width`` x ``height`` CSS pixels."""
    import plotly.io as pio

    fig = pio.from_json(spec_path.read_text(encoding="utf-8"))
    for attempt in range(1, RENDER_TRIES + 1):
        try:
            return pio.to_image(fig, format="svg", width=width, height=height)
        except Exception as exc:
            if NOT_READY not in str(exc) or attempt == RENDER_TRIES:
                raise


def ship(pages: tuple[str, ...] = PAGES, out: Path = PICTURES) -> dict[str, list[str]]:
    """Capture ``pages``, render their pictures into ``out`` and rewrite its manifest; returns the manifest."""
    import kaleido

    unknown = sorted(set(pages) - set(PAGES))
    if unknown:
        raise ValueError(f"pages: {unknown} are not system pages with a first view to picture; allowed: {PAGES}")
    manifest_path = out / "pages.json"
    kept = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    kept = {k: v for k, v in kept.items() if k in PAGES and k not in pages}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "figures"
        sizes = capture_sizes(pages, folder)
        staging = Path(tmp) / "pictures"
        staging.mkdir()
        for fps in kept.values():
            for fp in fps:
                for suffix in (".svg", ".npz"):
                    shutil.copy2(out / f"{fp}{suffix}", staging / f"{fp}{suffix}")
        kaleido.start_sync_server(silence_warnings=True)
        try:
            for charts in sizes.values():
                for chart in charts:
                    target = staging / f"{chart['fp']}.svg"
                    if not target.exists():
                        target.write_bytes(render(folder / f"{chart['fp']}.json", chart["width"], chart["height"]))
                        shutil.copy2(folder / f"{chart['fp']}.npz", staging / f"{chart['fp']}.npz")
        finally:
            kaleido.stop_sync_server(silence_warnings=True)
        manifest = {**kept, **{key: [c["fp"] for c in charts] for key, charts in sizes.items()}}
        (staging / "pages.json").write_text(json.dumps(dict(sorted(manifest.items())), indent=1) + "\n",
                                            encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(staging, out)
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help=f"system pages (default: all of {', '.join(PAGES)})")
    args = parser.parse_args(argv)
    os.environ.setdefault("BROWSER_PATH", shutil.which("chromium") or "/usr/bin/chromium")   # kaleido's Chrome
    manifest = ship(tuple(args.pages) or PAGES)
    print(f"{sum(len(v) for v in manifest.values())} pictures for {len(manifest)} pages in {PICTURES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
