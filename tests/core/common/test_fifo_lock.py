"""core/common/fifo_lock.py: waiting threads get the lock in the order they asked; one holder at a time."""

import threading

import pytest

from core.common.fifo_lock import FifoLock


def wait_for(condition, what: str) -> None:
    done = threading.Event()
    for _ in range(2000):
        if condition():
            return
        done.wait(0.005)
    raise AssertionError(f"timed out waiting for {what}")


def test_waiters_are_served_in_the_order_they_asked():
    lock, order = FifoLock(), []
    lock.acquire()
    threads = []
    for i in range(8):
        def take(i=i):
            with lock:
                order.append(i)
                if i == 0:                       # the first waiter asks again at once, as a looping writer does
                    threads.append(threading.Thread(target=lambda: (lock.acquire(), order.append("again"),
                                                                    lock.release())))
                    threads[-1].start()
                    wait_for(lambda: lock.waiting() == 8, "the repeat to queue behind the others")
        t = threading.Thread(target=take)
        t.start()
        wait_for(lambda i=i: lock.waiting() == i + 1, f"waiter {i}")     # queued in this order
        threads.append(t)
    lock.release()
    for t in list(threads):
        t.join(timeout=10)
    for t in threads:
        t.join(timeout=10)
    # the repeat asked last, so it comes last, though it asked while holding the lock (a plain Lock gives no order)
    assert order == [0, 1, 2, 3, 4, 5, 6, 7, "again"]


def test_one_holder_at_a_time_and_release_checks():
    lock, inside, most = FifoLock(), [0], [0]

    def work():
        for _ in range(200):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1 and not lock.locked()
    with pytest.raises(RuntimeError, match="unlocked"):
        lock.release()
