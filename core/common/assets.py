"""Where shipped files live: ``assets/<key>/`` at the repository root, found from this file.

Every system reads and writes its shipped files through :func:`asset_dir`, so the layout is
written down once.
"""

from __future__ import annotations

import re
from pathlib import Path

ASSETS_ROOT = Path(__file__).resolve().parents[2] / "assets"
_KEY = re.compile(r"^[a-z][a-z0-9_]*$")


def asset_dir(key: str) -> Path:
    """The folder of a system's shipped files, ``assets/<key>/`` (not created here).

    Parameters
    ----------
    key : str
        The system's catalog key, e.g. ``"geto_lp"``: lower-case letters, digits and underscores.

    Returns
    -------
    pathlib.Path
        ``<repository>/assets/<key>``.

    Raises
    ------
    ValueError
        If ``key`` is not a catalog-style key (so that no path outside ``assets/`` can be formed).

    Examples
    --------
    >>> asset_dir("geto_lp").relative_to(ASSETS_ROOT.parent).as_posix()
    'assets/geto_lp'
    """
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"key: {key!r} is not a system key; allowed lower-case letters, digits and '_', "
                         "starting with a letter")
    return ASSETS_ROOT / key
