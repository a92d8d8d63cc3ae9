"""The admin back-off in the database: one count for every app process, the same schedule as in memory."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from core.interestingness import StudyStore
from core.interestingness.safety import (FREE_TRIES, Backoff, SharedBackoff, backoff_pause, client_address,
                                         trusted_proxies)


def test_two_processes_see_one_count_on_the_same_schedule(db_url):
    now = [1_000_000.0]
    first, second = StudyStore(db_url), StudyStore(db_url)   # two replicas on one database
    shared = [SharedBackoff(s, clock=lambda: now[0]) for s in (first, second)]
    memory = Backoff(clock=lambda: now[0])
    for n in range(1, FREE_TRIES + 3):
        gate = shared[n % 2]                                  # alternate replicas, as nginx might
        assert gate.failed("session:a", "address:1.2.3.4") == memory.failed("session:a", "address:1.2.3.4")
        assert shared[0].wait("session:a") == shared[1].wait("session:a") == memory.wait("session:a")
    assert shared[1].failures("address:1.2.3.4") == FREE_TRIES + 2
    assert shared[0].wait("address:1.2.3.4") == backoff_pause(FREE_TRIES + 2) > 0
    assert shared[0].wait("session:other") == 0.0
    now[0] += backoff_pause(FREE_TRIES + 2) + 1
    assert shared[1].wait("session:a", "address:1.2.3.4") == 0.0      # the wait is over, the count is not
    shared[1].succeeded("session:a", "address:1.2.3.4")
    assert shared[0].failures("session:a") == 0 and shared[0].wait("session:a") == 0.0
    first.close(), second.close()


def test_concurrent_wrong_tries_are_all_counted(db_url):
    stores = [StudyStore(db_url) for _ in range(2)]
    gates = [SharedBackoff(s) for s in stores]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: gates[i % 2].failed("address:9.9.9.9", f"session:{i % 3}"), range(24)))
    assert gates[0].failures("address:9.9.9.9") == 24
    assert sum(gates[1].failures(f"session:{k}") for k in range(3)) == 24
    for s in stores:
        s.close()


@pytest.mark.parametrize("bad", ["", "x" * 201, None, 5])
def test_a_bad_key_is_refused_and_nothing_is_written(store, bad):
    with pytest.raises(ValueError, match="^key: .*allowed text of 1..200 characters"):
        store.backoff_failed(["session:ok", bad], 0.0)
    assert store.backoff_failures("session:ok") == 0


TRUSTED = trusted_proxies("127.0.0.1, 10.0.0.0/8")


@pytest.mark.parametrize("peer, forwarded, expected", [
    (None, "203.0.113.9", "203.0.113.9"),                   # nginx on the loopback (Streamlit reports None)
    ("10.1.2.3", "203.0.113.9", "203.0.113.9"),             # a proxy in a trusted network
    ("10.1.2.3", "6.6.6.6, 203.0.113.9", "203.0.113.9"),    # a forged left part is never read
    ("10.1.2.3", "203.0.113.9, 10.0.0.7", "203.0.113.9"),   # a chain of trusted proxies is walked through
    ("10.1.2.3", "not-an-address, 10.0.0.7", "10.0.0.7"),   # a malformed hop stops at the trusted one before it
    ("10.1.2.3", None, "10.1.2.3"),                         # no header: the proxy's own address
    ("198.51.100.7", "203.0.113.9", "198.51.100.7"),        # not a trusted proxy: its header is ignored
    ("2001:db8::1", "203.0.113.9", "2001:db8::1"),
])
def test_the_client_address_behind_a_trusted_proxy(peer, forwarded, expected):
    assert client_address(peer, forwarded, TRUSTED) == expected


def test_control_without_trusted_proxies_every_visitor_behind_nginx_is_one_address():
    assert {client_address(None, f"203.0.113.{i}", ()) for i in range(5)} == {"127.0.0.1"}
    assert len({client_address(None, f"203.0.113.{i}", TRUSTED) for i in range(5)}) == 5


def test_visitors_behind_a_trusted_proxy_back_off_separately(store):
    gate = SharedBackoff(store, clock=lambda: 1000.0)
    guessing, other = (f"address:{client_address(None, a, TRUSTED)}" for a in ("203.0.113.9", "198.51.100.7"))
    for _ in range(FREE_TRIES):
        gate.failed(guessing)
    assert gate.wait(guessing) > 0 and gate.wait(other) == 0
    guessing, other = (f"address:{client_address(None, a, ())}" for a in ("203.0.113.9", "198.51.100.7"))
    for _ in range(FREE_TRIES):                                   # control: without the setting they share one
        gate.failed(guessing)
    assert gate.wait(other) > 0


@pytest.mark.parametrize("bad", ["127.0.0.1, nginx", "10.0.0.0/33", "localhost"])
def test_a_bad_trusted_proxies_setting_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match="^STUDY_TRUSTED_PROXIES: .* is not an address or network"):
        trusted_proxies(bad)
