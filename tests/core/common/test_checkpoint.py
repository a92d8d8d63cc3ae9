import json
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from core.common.checkpoint import CONFIG, WEIGHTS, load_checkpoint, save_checkpoint
from core.common.config import Config, param


@dataclass(frozen=True)
class NetConfig(Config):
    width: int = param(4, low=1, high=64, integer=True)


def test_round_trip_module_with_tied_weights(tmp_path):
    torch.manual_seed(0)
    emb = torch.nn.Embedding(5, 4)
    head = torch.nn.Linear(4, 5, bias=False)
    head.weight = emb.weight  # tied: shared storage
    state = {"emb.weight": emb.weight, "head.weight": head.weight, "scale": np.arange(3, dtype=np.float32)}
    save_checkpoint(tmp_path / "ckpt", state, NetConfig(width=4), metadata={"seed": 0, "script": "test"})
    ckpt = load_checkpoint(tmp_path / "ckpt", NetConfig)
    assert ckpt.config == NetConfig(width=4)
    assert ckpt.metadata == {"seed": 0, "script": "test"}
    assert torch.equal(ckpt.tensors["emb.weight"], emb.weight.detach())
    assert torch.equal(ckpt.tensors["head.weight"], emb.weight.detach())
    np.testing.assert_array_equal(ckpt.tensors["scale"].numpy(), np.arange(3))


def test_files_are_safetensors_and_json_not_pickle(tmp_path):
    save_checkpoint(tmp_path, {"w": torch.ones(2)}, {"width": 2})
    raw = (tmp_path / WEIGHTS).read_bytes()
    header_len = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + header_len])
    assert header["w"]["dtype"] == "F32" and header["w"]["shape"] == [2]
    assert not raw.startswith(b"\x80")  # no pickle protocol marker
    assert json.loads((tmp_path / CONFIG).read_text())["config"] == {"width": 2}


def test_hand_edited_bad_config_is_refused(tmp_path):
    save_checkpoint(tmp_path, {"w": torch.ones(2)}, NetConfig())
    doc = json.loads((tmp_path / CONFIG).read_text())
    doc["config"]["width"] = 0
    (tmp_path / CONFIG).write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"^width: 0 is out of range; allowed integers in \[1, 64\]$"):
        load_checkpoint(tmp_path, NetConfig)


def test_missing_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="weights.safetensors is missing"):
        load_checkpoint(tmp_path)
