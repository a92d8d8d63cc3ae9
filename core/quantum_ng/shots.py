"""The shot accountant: every circuit execution and every shot an optimiser pays for, by purpose.

Counts come from ``qml.Tracker`` around each batch PennyLane runs, so they are what was executed
rather than what a formula says: an energy of a Hamiltonian with G qubit-wise-commuting groups
measured with S shots is G executions and G * S shots; a broadcast batch of B parameter vectors is
B times that. One exception is ours: PennyLane counts a classical-shadow dataset of T snapshots
as T executions of one shot each, and so do we (each snapshot is its own random-basis circuit).
Noise-free work done for reporting (the true energy at each step, exact metrics) is never charged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("gradient", "metric")


@dataclass
class ShotAccountant:
    """What an optimiser has spent: circuit executions and shots, in total and by purpose.

    Attributes
    ----------
    executions : int
        Circuit executions charged so far.
    shots : int
        Shots charged so far.
    by_kind : dict
        ``kind -> {"executions": int, "shots": int}`` per purpose (``gradient``, ``metric``).

    Examples
    --------
    >>> acc = ShotAccountant()
    >>> acc.charge("gradient", executions=4, shots=400)
    >>> acc.charge("metric", executions=100, shots=100)
    >>> acc.summary()["shots"], acc.by_kind["metric"]["executions"]
    (500, 100)
    """

    executions: int = 0
    shots: int = 0
    by_kind: dict = field(default_factory=dict)

    def charge(self, kind: str, executions: int, shots: int) -> None:
        """Add ``executions`` circuits and ``shots`` shots under ``kind``."""
        if executions < 0 or shots < 0:
            raise ValueError(f"charge: executions {executions} and shots {shots} must be >= 0; allowed >= 0")
        self.executions += int(executions)
        self.shots += int(shots)
        entry = self.by_kind.setdefault(kind, {"executions": 0, "shots": 0})
        entry["executions"] += int(executions)
        entry["shots"] += int(shots)

    def charge_tracker(self, kind: str, tracker) -> None:
        """Charge what a ``qml.Tracker`` saw (its ``totals``)."""
        totals = tracker.totals
        self.charge(kind, int(totals.get("executions", 0)), int(totals.get("shots", 0)))

    def summary(self) -> dict:
        """Totals and per-kind counts as one flat mapping (``gradient_shots``, ...)."""
        return {"executions": self.executions, "shots": self.shots,
                **{f"{k}_{what}": v[what] for k, v in self.by_kind.items() for what in ("executions", "shots")}}
