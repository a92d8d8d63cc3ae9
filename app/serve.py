"""Serve Paperlab: ``python -m app.serve [streamlit options]`` is ``streamlit run app/main.py`` plus a warm-up.

The background warm-up (:mod:`app.ui.warmup`) starts here, with the server, so a link opened
directly as the first URL of a fresh server finds the heavy libraries of the pages being imported
already. What it imports is set by ``PAPERLAB_WARM``:

- ``all`` (default): every built page's heavy modules (``System.warm`` in the catalog);
- ``none``: nothing, for a replica that should hold only what its visitors use;
- a comma-separated list of system keys, e.g. ``interestingness`` for a study-only replica.

First views never need these modules (they read shipped arrays); training and probing do. The
imports begin ``PAPERLAB_WARM_DELAY`` seconds (default 15) after the start, so that a link opened on
a fresh server is drawn without them competing for the two cores, and they pause while any page is
being drawn.

Before the server listens, the page modules of the same systems are imported (``pages.<key>``: what a
first view needs, numpy, plotly, pandas and for some pages scipy or scikit-learn, never torch,
transformers or PennyLane), so that a link opened as the first URL of a fresh server does not pay for
them inside its first view, where they would cost seconds of the server's time on some pages
(bench/timing.py times a page's first run against its second). With ``PAPERLAB_WARM=all`` the server
starts about 3 s later and holds about 210 MB more from the start (272 MB against 60 MB, measured
importing every page module in one interpreter), memory the warm-up takes anyway; ``none`` imports nothing.

Streamlit's file watcher is off here (``--server.fileWatcherType none`` unless the command line sets
it): a served app does not reload on edit, and each new session's watcher would walk every module
the warm-up has imported (thousands, with torch and transformers), which on two cores holds back a
warmed server's first view by a second or more. ``streamlit run app/main.py`` keeps the watcher
for development.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from streamlit.web import cli

    from app.ui.warmup import freeze_heap, import_page, page_modules, warm_delay, warm_modules, warm_up

    import_page(page_modules())     # before the server listens: a first view finds its page's libraries built
    freeze_heap()                   # and no full collection walks them again
    warm_up(warm_modules(), delay=warm_delay())
    options = list(sys.argv[1:] if argv is None else argv)
    sys.argv = ["streamlit", "run", str(ROOT / "app" / "main.py"), *served(options)]
    return cli.main()


def served(options: list[str]) -> list[str]:
    """Streamlit's options for a served app: ``options``, with the file watcher off unless they set it."""
    if any(o.startswith("--server.fileWatcherType") for o in options):
        return options
    return [*options, "--server.fileWatcherType", "none"]


if __name__ == "__main__":
    sys.exit(main())
