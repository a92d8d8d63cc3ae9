import pytest
import torch

from core.common.device import choose_device


def test_cpu_is_the_default(monkeypatch):
    monkeypatch.delenv("PAPERLAB_DEVICE", raising=False)
    assert choose_device() == "cpu"


def test_cuda_only_when_present_and_asked(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert choose_device("cuda") == "cuda"
    assert choose_device("auto") == "cuda"
    assert choose_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert choose_device("auto") == "cpu"
    with pytest.raises(ValueError, match=r"^device: 'cuda' was asked for but torch sees no CUDA device"):
        choose_device("cuda")


def test_environment_variable_and_bad_names(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("PAPERLAB_DEVICE", "auto")
    assert choose_device() == "cpu"
    with pytest.raises(ValueError, match=r"^device: 'tpu' is not an option; allowed 'cpu', 'cuda', 'auto'$"):
        choose_device("tpu")
