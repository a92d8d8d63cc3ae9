"""Controls whose values live in the URL, so a copied link reproduces the view.

Every widget made here passes ``bind="query-params"``: the URL initialises it, and changing it
updates the URL (Streamlit drops a parameter that equals its default). Keys are the parameter
names, so keep them short and stable. A select box with ``format_func`` puts the displayed label in
the URL (``?problem=Ski+rental``), and reads it back.

Streamlit replaces a URL value that the widget cannot take (``eps=99`` on a 0 to 3 slider,
``problem=Nonexistent``, ``seed=-3``) by the default and drops it from the URL, silently. :func:`bound`
compares the URL's raw value with what the widget took and, where they differ, says so beside the
control: the parameter, the value, what is allowed and what is shown instead.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from core.common.seeding import MAX_SEED


def bound(widget: Callable[..., Any], label: str, *, key: str, **kwargs) -> Any:
    """Any Streamlit input widget (slider, selectbox, number_input, ...) bound to the URL as ``key``.

    A URL value the widget refused is reported with :func:`link_notice` (once per value).
    """
    raw = st.query_params.get_all(key) if key in st.query_params else None
    value = widget(label, key=key, bind="query-params", **kwargs)
    if raw and not link_value_taken(raw, value, kwargs):
        link_notice(key, raw, value, kwargs)
    return value


def _labels(value: Any, kwargs: dict) -> set[str]:
    """The strings a URL may carry for ``value``: itself and its displayed label."""
    out = {str(value)}
    if "format_func" in kwargs:
        out.add(str(kwargs["format_func"](value)))
    return out


def link_value_taken(raw: list[str], value: Any, kwargs: dict) -> bool:
    """Whether the widget's ``value`` is what the URL's ``raw`` strings asked for."""
    if isinstance(value, (list, tuple)):
        if "options" in kwargs or not value:            # multiselect / pills: every label, in order
            return list(raw) == [label for v in value for label in sorted(_labels(v, kwargs)) if label in raw][:len(raw)]
        try:                                            # a range slider
            return len(raw) == len(value) and all(abs(float(r) - float(v)) <= 1e-9 for r, v in zip(raw, value))
        except (TypeError, ValueError):
            return False
    text = raw[-1]
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if isinstance(value, (int, float)):
        try:
            return abs(float(text) - float(value)) <= 1e-9 * max(1.0, abs(float(value)))
        except ValueError:
            return False
    return text in _labels(value, kwargs)


def allowed_text(kwargs: dict) -> str:
    """What a widget accepts, for the notice: its range or its options."""
    if "min_value" in kwargs or "max_value" in kwargs:
        return f"{kwargs.get('min_value', '−∞')} to {kwargs.get('max_value', '∞')}"
    options = list(kwargs.get("options", []))
    if options:
        fmt = kwargs.get("format_func", str)
        shown = ", ".join(str(fmt(o)) for o in options[:8])
        return f"one of {shown}" + (", …" if len(options) > 8 else "")
    return "another value"


def link_notice(key: str, raw: list[str], value: Any, kwargs: dict) -> None:
    """A short notice beside the control: the link's value was not usable, and what is shown instead."""
    fmt = kwargs.get("format_func", str)
    shown = ", ".join(map(str, map(fmt, value))) if isinstance(value, (list, tuple)) else str(fmt(value))
    asked = ", ".join(raw)
    st.warning(f"The link's `{key}={asked}` is not allowed (allowed: {allowed_text(kwargs)}); showing {shown}.",
               icon=":material/link_off:")


def seed_input(default: int = 0, *, key: str = "seed", label: str = "Seed") -> int:
    """The seed box every page has: the same seed gives the same result, and it is in the URL."""
    value = bound(st.number_input, label, key=key, min_value=0, max_value=MAX_SEED, value=default, step=1,
                  help="The same seed gives the same result. It is part of the URL, so a link reproduces this view.")
    return int(value)
