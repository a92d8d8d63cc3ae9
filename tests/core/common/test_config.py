from dataclasses import FrozenInstanceError, dataclass

import pytest

from core.common.config import Config, check_choice, check_range, choice, param


@dataclass(frozen=True)
class TrainConfig(Config):
    steps: int = param(100, low=1, high=1000, integer=True)
    lr: float = param(0.1, low=0.0, high=1.0, low_open=True)
    optimizer: str = choice("adam", ("adam", "sgd"))
    width: int = param(8, low=1, integer=True)

    def validate(self):
        if self.optimizer == "sgd" and self.lr > 0.5:
            raise ValueError(f"lr: {self.lr:g} is too large for sgd; allowed (0, 0.5] with optimizer='sgd'")


def test_defaults_are_valid_and_frozen():
    cfg = TrainConfig()
    assert (cfg.steps, cfg.lr, cfg.optimizer) == (100, 0.1, "adam")
    with pytest.raises(FrozenInstanceError):
        cfg.steps = 3


@pytest.mark.parametrize("kwargs, message", [
    ({"steps": 0}, "steps: 0 is out of range; allowed integers in [1, 1000]"),
    ({"steps": 2.5}, "steps: expected an integer, got 2.5; allowed integers in [1, 1000]"),
    ({"steps": True}, "steps: expected a number, got True; allowed integers in [1, 1000]"),
    ({"lr": 0.0}, "lr: 0 is out of range; allowed in (0, 1]"),
    ({"lr": float("nan")}, "lr: nan is not finite; allowed in (0, 1]"),
    ({"lr": "fast"}, "lr: expected a number, got 'fast'; allowed in (0, 1]"),
    ({"optimizer": "lbfgs"}, "optimizer: 'lbfgs' is not an option; allowed 'adam', 'sgd'"),
    ({"width": 0}, "width: 0 is out of range; allowed integers >= 1"),
    ({"optimizer": "sgd", "lr": 0.9}, "lr: 0.9 is too large for sgd; allowed (0, 0.5] with optimizer='sgd'"),
])
def test_bad_values_name_the_field_and_range(kwargs, message):
    with pytest.raises(ValueError) as err:
        TrainConfig(**kwargs)
    assert str(err.value) == message


def test_numbers_are_normalised():
    import numpy as np

    cfg = TrainConfig(steps=np.int64(5), lr=1)
    assert type(cfg.steps) is int and type(cfg.lr) is float


def test_round_trip_and_unknown_fields():
    cfg = TrainConfig(steps=7, optimizer="sgd")
    assert TrainConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match=r"^stepz: not a field of TrainConfig; allowed steps, lr, optimizer, width$"):
        TrainConfig.from_dict({"stepz": 3})
    assert cfg.replace(steps=9).steps == 9
    with pytest.raises(ValueError, match="^steps:"):
        cfg.replace(steps=-1)


def test_a_bad_default_is_caught_when_the_class_is_defined():
    with pytest.raises(ValueError, match="default: 5 is out of range"):
        param(5, low=0, high=1)


def test_open_and_half_bounded_ranges():
    assert check_range("x", 1.0, high=1.0) == 1.0
    with pytest.raises(ValueError, match=r"^x: 1 is out of range; allowed < 1$"):
        check_range("x", 1.0, high=1.0, high_open=True)
    assert check_choice("mode", "b", ["a", "b"]) == "b"
