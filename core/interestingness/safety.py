"""What makes the study safe to put on the open web: link parameters checked before they reach the
database, links signed under a server secret, spreadsheet-safe exports, secrets kept out of messages,
and the admin gate's password rule and back-off.

Choices that are ours:
- Link parameters (``study``, ``pid``, ``pop``, ``sig``, ``PROLIFIC_PID``, ``STUDY_ID``, ``SESSION_ID``) are
  at most 128 characters of ``[A-Za-z0-9_.:@{}%-]`` (Prolific's ids are 24 hex digits; ``{{%...%}}`` is
  Prolific's placeholder syntax); anything else, NUL included, is refused before any query.
- A link that fixes anything the experimenter set (today: the population) carries ``sig``, the first
  32 hex digits of HMAC-SHA256 under ``STUDY_SECRET`` over ``study`` and those parameters in a fixed
  order. Without ``STUDY_SECRET`` no such link can be made or accepted: the admin page offers only the
  link that asks the background questions.
- CSV cells that start with ``=``, ``+``, ``-``, ``@``, tab or carriage return get a leading ``'`` (the OWASP
  rule for CSV injection); numbers are written as numbers.
- An unlocked admin session survives a reload through a cookie holding ``<expiry>.<HMAC>``: the HMAC is
  keyed by the admin password (and ``STUDY_SECRET`` when set), so changing the password ends every such
  session; it expires after ``ADMIN_SESSION_S`` (12 h).
- The admin password must have at least ``MIN_PASSWORD_LENGTH`` characters (or the gate stays shut and
  says why). After ``FREE_TRIES`` wrong tries a session, and separately a client address, waits
  ``BACKOFF_BASE_S * 2**(failures - FREE_TRIES)`` seconds (at most ``BACKOFF_MAX_S``) before the next try
  is even compared. Across app processes the counts live in the study database (:class:`SharedBackoff`);
  :class:`Backoff` keeps them in one process (tests, a single server without a store).
- The client address the back-off counts (:func:`client_address`) is the address of the connection,
  except when that connection comes from a proxy named in ``STUDY_TRUSTED_PROXIES`` (addresses or
  networks, comma-separated; none by default): then it is the rightmost address of ``X-Forwarded-For``
  that is not itself a trusted proxy (the one the trusted proxy saw). Behind nginx every connection
  comes from nginx, so without the setting all visitors would share one count; with it, a header a
  visitor forges is ignored, because only the hops that trusted proxies appended are read. Streamlit
  reports no address for a connection from the loopback, which counts as ``127.0.0.1`` here.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import re
import secrets
import threading
import time
from urllib.parse import urlsplit

LOG = logging.getLogger("paperlab.interestingness")
PARAM_PATTERN = re.compile(r"^[A-Za-z0-9_.:@{}%-]{1,128}$")
MAX_PARAM = 128
SIGNED = ("pop",)                   # experimenter-set link parameters, in the order they are signed
SIG_HEX = 32
MIN_SECRET_LENGTH = 16
MIN_PASSWORD_LENGTH = 12
FREE_TRIES = 3
BACKOFF_BASE_S = 2.0
BACKOFF_MAX_S = 900.0
ADMIN_SESSION_S = 12 * 3600
CSV_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def check_text(field: str, value, max_len: int, min_len: int = 0, optional: bool = False) -> str | None:
    """``value`` as a str of ``min_len..max_len`` characters without NUL (None allowed when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{field}: {type(value).__name__} is not allowed; allowed text")
    if "\x00" in value:
        raise ValueError(f"{field}: contains a NUL character; allowed text without NUL")
    if not min_len <= len(value) <= max_len:
        allowed = f"at most {max_len}" if min_len == 0 else f"{min_len}..{max_len}"
        raise ValueError(f"{field}: {len(value)} characters; allowed {allowed}")
    return value


def check_param(name: str, value) -> str | None:
    """One link parameter: None, or 1..128 characters of PARAM_PATTERN."""
    if value is None:
        return None
    value = str(value)
    if not PARAM_PATTERN.match(value):
        what = ("contains a NUL character" if "\x00" in value else
                f"{len(value)} characters" if not 1 <= len(value) <= MAX_PARAM else "has characters outside the set")
        raise ValueError(f"{name}: {what}; allowed 1..{MAX_PARAM} letters, digits and _ . : @ {{ }} % -")
    return value


def check_link_params(params: dict) -> dict:
    """The link's parameters, each checked with :func:`check_param`; raises ValueError naming the first bad one."""
    return {key: check_param(key, value) for key, value in params.items()}


def check_http_url(field: str, value: str | None) -> str | None:
    """None, or an absolute http(s) URL with a host (no ``javascript:``, ``data:``, relative or NUL)."""
    if value is None:
        return None
    check_text(field, value, 2000, 1)
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in value):
        raise ValueError(f"{field}: {value[:60]!r} is not allowed; allowed an absolute http:// or https:// URL")
    return value


# -- signed links ---------------------------------------------------------------------------------

def signature(secret: str, study_id: int, **fixed) -> str:
    """The HMAC-SHA256 (hex, first SIG_HEX digits) of the study and its fixed parameters under ``secret``."""
    if not secret or len(secret) < MIN_SECRET_LENGTH:
        raise ValueError(f"STUDY_SECRET: {'not set' if not secret else f'{len(secret)} characters'}; allowed a "
                         f"server secret of {MIN_SECRET_LENGTH} or more characters")
    message = "\n".join([f"study={int(study_id)}"] + [f"{k}={fixed.get(k) or ''}" for k in SIGNED])
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()[:SIG_HEX]


def verify(secret: str | None, study_id: int, sig: str | None, **fixed) -> bool:
    """True when ``sig`` is the signature of these parameters (always False without a secret or a sig)."""
    if not secret or len(secret) < MIN_SECRET_LENGTH or not sig:
        return False
    return hmac.compare_digest(signature(secret, study_id, **fixed), str(sig))


# -- exports and messages -------------------------------------------------------------------------

def csv_safe(value):
    """A cell a spreadsheet will not run as a formula: text starting with a trigger gets a leading '."""
    if isinstance(value, str) and value.startswith(CSV_TRIGGERS):
        return "'" + value
    return value


def redact(text: str, *secrets_: str | None) -> str:
    """``text`` with every occurrence of each non-empty secret replaced by ``***``."""
    text = str(text)
    for secret in secrets_:
        if secret:
            text = text.replace(secret, "***")
    return text


def reference(error: BaseException, where: str) -> str:
    """Log ``error`` with its traceback under a fresh reference code and return the code (for the user)."""
    code = secrets.token_hex(4).upper()
    LOG.error("study error %s in %s", code, where, exc_info=(type(error), error, error.__traceback__))
    return code


# -- the admin gate -------------------------------------------------------------------------------

def password_problem(password: str | None) -> str | None:
    """Why ``password`` may not unlock the admin (None when it may)."""
    if not password:
        return "no admin password is set"
    if len(password.strip()) < MIN_PASSWORD_LENGTH:
        return (f"the admin password has {len(password.strip())} characters (spaces at the ends not counted); "
                f"allowed {MIN_PASSWORD_LENGTH} or more")
    return None


def trusted_proxies(value: str | None) -> tuple:
    """The networks of ``STUDY_TRUSTED_PROXIES``: comma-separated addresses or networks (empty: none).

    Examples
    --------
    >>> [str(n) for n in trusted_proxies("127.0.0.1, 10.0.0.0/8")]
    ['127.0.0.1/32', '10.0.0.0/8']
    """
    if value is None or not value.strip():
        return ()
    networks = []
    for part in value.split(","):
        try:
            networks.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise ValueError(f"STUDY_TRUSTED_PROXIES: {part.strip()!r} is not an address or network; allowed "
                             "comma-separated addresses or networks such as 127.0.0.1, 172.16.0.0/12") from None
    return tuple(networks)


def _ip(text: str):
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def client_address(peer: str | None, forwarded_for: str | None, trusted=()) -> str:
    """The client address the admin back-off counts (see the module docstring).

    ``peer`` is the connection's address (None: the loopback, as Streamlit reports it), ``forwarded_for``
    the request's ``X-Forwarded-For`` header, ``trusted`` the networks of :func:`trusted_proxies`. A header
    is read only when the peer is trusted, from its right end, skipping trusted hops; a hop that is not an
    address ends the walk at the trusted hop before it.

    Examples
    --------
    >>> client_address("10.0.0.5", "6.6.6.6, 203.0.113.9", trusted_proxies("10.0.0.0/8"))
    '203.0.113.9'
    >>> client_address("198.51.100.7", "203.0.113.9", trusted_proxies("10.0.0.0/8"))  # not a proxy: its own
    '198.51.100.7'
    """
    address = peer if peer else "127.0.0.1"
    here = _ip(address)
    if here is None or not any(here in network for network in trusted) or not forwarded_for:
        return address
    for hop in reversed(forwarded_for.split(",")):
        ip = _ip(hop)
        if ip is None:
            return address
        address = str(ip)
        if not any(ip in network for network in trusted):
            return address
    return address


def backoff_pause(failures: int) -> float:
    """Seconds a key waits after its ``failures``-th wrong try in a row: 0 for the first ``FREE_TRIES - 1``,
    then ``BACKOFF_BASE_S * 2**(failures - FREE_TRIES)``, at most ``BACKOFF_MAX_S``."""
    return 0.0 if failures < FREE_TRIES else min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (failures - FREE_TRIES))


class SharedBackoff:
    """:class:`Backoff`'s interface over the study database, so that every app process sees one count.

    ``store`` is a :class:`~core.interestingness.store.StudyStore` (its ``backoff_*`` methods hold the rows);
    ``clock`` returns seconds since the epoch (default ``time.time``: processes share no monotonic clock).
    Behind nginx with several replicas a client that has to wait on one waits on all of them."""

    def __init__(self, store, clock=None):
        self.store = store
        self.clock = clock or time.time

    def wait(self, *keys: str) -> float:
        """Seconds before any of ``keys`` may try again (0 when all may)."""
        return self.store.backoff_wait([k for k in keys if k], self.clock())

    def failed(self, *keys: str) -> float:
        """Record one wrong try for every key; returns the wait it imposes."""
        return self.store.backoff_failed([k for k in keys if k], self.clock())

    def succeeded(self, *keys: str) -> None:
        self.store.backoff_succeeded([k for k in keys if k])

    def failures(self, key: str) -> int:
        return self.store.backoff_failures(key)


class Backoff:
    """Failed tries per key (a session, a client address) and when the next try may be compared.

    ``clock`` returns seconds (default ``time.monotonic``); tests pass a controllable one."""

    def __init__(self, clock=None):
        self.clock = clock or time.monotonic
        self._failures: dict[str, int] = {}
        self._until: dict[str, float] = {}
        self._guard = threading.Lock()

    def wait(self, *keys: str) -> float:
        """Seconds before any of ``keys`` may try again (0 when all may)."""
        now = self.clock()
        with self._guard:
            return max([0.0] + [self._until.get(k, 0.0) - now for k in keys if k])

    def failed(self, *keys: str) -> float:
        """Record one wrong try for every key; returns the wait it imposes."""
        now, longest = self.clock(), 0.0
        with self._guard:
            for key in filter(None, keys):
                n = self._failures[key] = self._failures.get(key, 0) + 1
                pause = backoff_pause(n)
                self._until[key] = now + pause
                longest = max(longest, pause)
        return longest

    def succeeded(self, *keys: str) -> None:
        with self._guard:
            for key in keys:
                self._failures.pop(key, None)
                self._until.pop(key, None)

    def failures(self, key: str) -> int:
        return self._failures.get(key, 0)


def _admin_key(password: str, secret: str | None) -> bytes:
    return hashlib.sha256(f"paperlab-admin\n{password}\n{secret or ''}".encode()).digest()


def admin_token(password: str, secret: str | None, now: float, lifetime: float = ADMIN_SESSION_S) -> str:
    """A token that unlocks the admin until ``now + lifetime`` (seconds since the epoch)."""
    expiry = int(now + lifetime)
    return f"{expiry}.{hmac.new(_admin_key(password, secret), str(expiry).encode(), hashlib.sha256).hexdigest()}"


def admin_token_valid(token: str | None, password: str, secret: str | None, now: float) -> bool:
    """True for an unexpired token made by :func:`admin_token` under the same password and secret."""
    if not isinstance(token, str) or not re.fullmatch(r"\d{1,12}\.[0-9a-f]{64}", token):
        return False
    expiry, mac = token.split(".")
    good = hmac.new(_admin_key(password, secret), expiry.encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(good, mac) and int(expiry) > now
