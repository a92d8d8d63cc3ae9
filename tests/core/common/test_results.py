import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest
import torch

from core.common.results import result_to_dict, result_to_frame, result_to_json


@dataclass
class TrainResult:
    loss: np.ndarray
    accuracy: np.ndarray
    weights: np.ndarray          # (steps, 2): split into columns
    confusion: np.ndarray        # another leading length: JSON only
    final_loss: float
    name: str = "run"
    extra: dict = field(default_factory=dict)


def make():
    return TrainResult(loss=np.array([1.0, 0.5, np.nan]), accuracy=np.array([0.1, 0.5, 0.9], dtype=np.float32),
                       weights=np.arange(6.0).reshape(3, 2), confusion=np.eye(2), final_loss=np.float64(0.5),
                       extra={"grad": torch.tensor([1.0, 2.0, 3.0])})


def test_json_is_strict_and_complete():
    text = result_to_json(make())
    data = json.loads(text)
    assert data["loss"] == [1.0, 0.5, None]  # NaN becomes null
    assert data["confusion"] == [[1.0, 0.0], [0.0, 1.0]]
    assert data["extra"] == {"grad": [1.0, 2.0, 3.0]}
    assert data["final_loss"] == 0.5 and isinstance(result_to_dict(make())["final_loss"], float)


def test_frame_keeps_the_common_length_and_splits_matrices():
    frame = result_to_frame(make())
    assert list(frame.columns) == ["loss", "accuracy", "weights[0]", "weights[1]", "extra.grad", "final_loss", "name"]
    assert len(frame) == 3
    np.testing.assert_allclose(frame["weights[1]"], [1.0, 3.0, 5.0])
    assert (frame["name"] == "run").all() and (frame["final_loss"] == 0.5).all()
    round_trip = pd.read_csv(pd.io.common.StringIO(frame.to_csv(index=False)))
    np.testing.assert_allclose(round_trip["accuracy"], [0.1, 0.5, 0.9], rtol=1e-6)


def test_scalars_only_give_one_row_and_custom_frames_win():
    @dataclass
    class Summary:
        mean: float
        n: int

    assert result_to_frame(Summary(1.5, 3)).to_dict("records") == [{"mean": 1.5, "n": 3}]

    class Custom:
        def to_frame(self):
            return pd.DataFrame({"x": [1]})

    assert list(result_to_frame(Custom()).columns) == ["x"]


def test_unexportable_values_are_named():
    with pytest.raises(TypeError, match="cannot export a object"):
        result_to_dict({"x": object()})
