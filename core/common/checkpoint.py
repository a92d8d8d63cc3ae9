"""Checkpoints: tensors in safetensors, config and metadata in JSON. Nothing is ever unpickled.

A checkpoint is a directory holding ``weights.safetensors`` and ``config.json``. The JSON records
the config's class name, its fields, a format version and free-form metadata (training seed,
metrics, the script that made it). Loading with ``config_cls`` re-validates the config, so a
hand-edited file with a bad value fails with the usual field-naming ``ValueError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from core.common.config import Config

FORMAT_VERSION = 1
WEIGHTS = "weights.safetensors"
CONFIG = "config.json"


@dataclass
class Checkpoint:
    """What :func:`load_checkpoint` reads back.

    Attributes
    ----------
    tensors : dict of str to torch.Tensor
        The weights, by name.
    config : Config or dict
        The config, re-validated as ``config_cls`` when one was given, else the stored fields.
    metadata : dict
        Free-form facts recorded at save time (seed, metrics, the command that made it).
    """

    tensors: dict
    config: Any
    metadata: dict = field(default_factory=dict)


def save_checkpoint(directory: str | Path, tensors: Mapping[str, Any], config: Config | Mapping[str, Any],
                    metadata: Mapping[str, Any] | None = None) -> Path:
    """Write ``tensors`` (torch tensors or numpy arrays) and ``config`` to ``directory``.

    Parameters
    ----------
    directory : str or pathlib.Path
        Created if missing; ``weights.safetensors`` and ``config.json`` in it are overwritten.
    tensors : Mapping[str, torch.Tensor or numpy.ndarray]
        The weights; shared storage (tied weights) is copied apart, as safetensors requires.
    config : Config or Mapping[str, Any]
        A validated config (its class name is recorded so loading can check it) or plain fields.
    metadata : Mapping[str, Any] or None
        JSON-serialisable facts to keep beside the config.

    Returns
    -------
    pathlib.Path
        ``directory``.

    Examples
    --------
    >>> import tempfile
    >>> folder = save_checkpoint(tempfile.mkdtemp(), {"w": np.ones(2, dtype=np.float32)}, {"width": 2})
    >>> sorted(p.name for p in folder.iterdir())
    ['config.json', 'weights.safetensors']
    """
    import torch
    from safetensors.torch import save_file

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    # clone() breaks shared storage (tied weights), which safetensors refuses to write.
    plain = {name: (torch.from_numpy(value) if not isinstance(value, torch.Tensor) else value)
             .detach().cpu().contiguous().clone() for name, value in tensors.items()}
    save_file(plain, directory / WEIGHTS, metadata={"format": "pt"})
    is_config = isinstance(config, Config)
    document = {
        "paperlab_checkpoint": FORMAT_VERSION,
        "config_class": type(config).__name__ if is_config else None,
        "config": config.to_dict() if is_config else dict(config),
        "metadata": dict(metadata or {}),
    }
    (directory / CONFIG).write_text(json.dumps(document, indent=2, sort_keys=True))
    return directory


def load_checkpoint(directory: str | Path, config_cls: type[Config] | None = None, device: str = "cpu") -> Checkpoint:
    """Read a checkpoint written by :func:`save_checkpoint`; tensors land on ``device``.

    Never unpickles: tensors come from safetensors, everything else from JSON.

    Parameters
    ----------
    directory : str or pathlib.Path
        A folder holding ``weights.safetensors`` and ``config.json``.
    config_cls : type of Config or None
        Rebuild and re-validate the config as this class (a hand-edited bad value raises the usual
        field-naming ``ValueError``); None returns the stored fields as a dict.
    device : str
        Where the tensors are placed.

    Returns
    -------
    Checkpoint
        The tensors, the config and the metadata.

    Raises
    ------
    FileNotFoundError
        If either file is missing.
    ValueError
        For an unknown format version or a checkpoint of another config class.

    Examples
    --------
    >>> import tempfile
    >>> folder = save_checkpoint(tempfile.mkdtemp(), {"w": np.ones(2, dtype=np.float32)}, {"width": 2}, {"seed": 0})
    >>> loaded = load_checkpoint(folder)
    >>> loaded.tensors["w"].tolist(), loaded.config, loaded.metadata
    ([1.0, 1.0], {'width': 2}, {'seed': 0})
    """
    from safetensors.torch import load_file

    directory = Path(directory)
    for name in (WEIGHTS, CONFIG):
        if not (directory / name).is_file():
            raise FileNotFoundError(f"checkpoint: {directory / name} is missing; a checkpoint holds {WEIGHTS} and {CONFIG}")
    document = json.loads((directory / CONFIG).read_text())
    if document.get("paperlab_checkpoint") != FORMAT_VERSION:
        raise ValueError(f"checkpoint: format {document.get('paperlab_checkpoint')!r} is not supported; allowed {FORMAT_VERSION}")
    config = document["config"]
    if config_cls is not None:
        if document.get("config_class") not in (None, config_cls.__name__):
            raise ValueError(f"checkpoint: holds a {document['config_class']}; allowed {config_cls.__name__}")
        config = config_cls.from_dict(config)
    return Checkpoint(load_file(directory / WEIGHTS, device=device), config, document.get("metadata", {}))
