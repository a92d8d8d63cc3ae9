"""Shipped decompositions and measurements, so the page's first view needs no fitting.

    python -m core.grace.ship          # after python -m core.grace.train_clip; about a minute

Writes assets/grace/decompositions.npz (every fitted method, for images and for clips, with the
held-out embeddings they were scored on) and assets/grace/comparison.json (the metric tables and
the sparsity trade-off curves).
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np

from core.grace.baselines import SAEDecomposition, SpliceDecomposition, TextSpanDecomposition, fit_splice
from core.grace.clip import ASSETS, embed_texts, load_model
from core.grace.compare import FIT_SEED, compare, scene_set
from core.grace.grace import GraceDecomposition, fit_grace
from core.grace.metrics import reconstruction_cosine, sparsity, trustworthiness
from core.grace.space import Space

KINDS = {"GRACE": GraceDecomposition, "SpLiCE": SpliceDecomposition, "TextSpan": TextSpanDecomposition,
         "SAE": SAEDecomposition}
CURVE_SPARSITY = (0.01, 0.05, 0.2, 0.5, 1.0, 3.0)
CURVE_L1 = (0.01, 0.03, 0.1, 0.2, 0.4, 0.8)


def pack(prefix: str, decomposition) -> dict:
    out = {}
    for f in dataclasses.fields(decomposition):
        value = getattr(decomposition, f.name)
        if f.name == "space":
            out[f"{prefix}/space/image_mean"] = value.image_mean
            out[f"{prefix}/space/radius"] = np.array(value.radius)
        elif f.name != "history" and value is not None:
            out[f"{prefix}/{f.name}"] = np.array(value)
    return out


def unpack(prefix: str, arrays) -> object:
    kind = KINDS[str(arrays[f"{prefix}/method"])]
    values = {}
    for f in dataclasses.fields(kind):
        if f.name == "space":
            values["space"] = Space(arrays[f"{prefix}/space/image_mean"], float(arrays[f"{prefix}/space/radius"]))
        elif f"{prefix}/{f.name}" in arrays:
            value = arrays[f"{prefix}/{f.name}"]
            values[f.name] = value.tolist() if value.dtype.kind in "UO" or value.ndim == 0 else value
    if "chosen" in values:
        values["chosen"] = [int(i) for i in values["chosen"]]
    return kind(**values)


def tradeoff_curves(fit_embeddings, test_embeddings, vocabulary, concepts, geometry: float = 1.0, seed: int = 0,
                    sparsities=CURVE_SPARSITY, progress=None) -> list:
    """GRACE at several sparsity weights (one geometry weight): L0, reconstruction, trustworthiness."""
    from core.common.progress import report

    rows = []
    for i, alpha in enumerate(sparsities, 1):
        fitted = fit_grace(fit_embeddings, vocabulary, concepts, sparsity=alpha, geometry=geometry, seed=seed)
        rows.append(curve_point("GRACE", alpha, geometry, fitted, test_embeddings))
        if not report(progress, i, len(sparsities), {"sparsity": alpha}):
            break
    return rows


def curve_point(method, knob, geometry, fitted, test_embeddings) -> dict:
    codes = fitted.encode(test_embeddings)
    z = fitted.space.centre(test_embeddings)
    return {"method": method, "knob": float(knob), "geometry": geometry, "L0": sparsity(codes),
            "reconstruction cosine (centred)": reconstruction_cosine(z, codes @ fitted.dictionary),
            "trustworthiness": trustworthiness(test_embeddings, codes)}


def ship() -> dict:
    model = load_model()
    arrays, report_doc = {}, {"made_by": "python -m core.grace.ship", "tables": {}, "curves": {}}
    for kind, video in (("image", False), ("video", True)):
        result = compare(model, video=video)
        for name, decomposition in result.decompositions.items():
            arrays.update(pack(f"{kind}/{name}", decomposition))
        arrays[f"{kind}/test_embeddings"] = result.test.embeddings.astype(np.float32)
        report_doc["tables"][kind] = result.table
        if not video:
            fit = result.decompositions["GRACE"]
            concepts = embed_texts(model, result.vocabulary)
            fit_set = scene_set(model, 2000, FIT_SEED)
            curves = []
            for geometry in (0.0, 1.0):
                curves += tradeoff_curves(fit_set.embeddings, result.test.embeddings, result.vocabulary, concepts,
                                          geometry=geometry)
            for l1 in CURVE_L1:
                fitted = fit_splice(fit_set.embeddings, result.vocabulary, concepts, l1)
                curves.append(curve_point("SpLiCE", l1, None, fitted, result.test.embeddings))
            report_doc["curves"]["image"] = curves
            report_doc["grace_history"] = {k: list(map(float, v)) for k, v in fit.history.items()}
    np.savez_compressed(ASSETS / "decompositions.npz", **arrays)
    (ASSETS / "comparison.json").write_text(json.dumps(report_doc, indent=1))
    return report_doc


def load_shipped() -> tuple[dict, dict]:
    """({"image"|"video": {method: decomposition, "test_embeddings": array}}, the comparison document)."""
    arrays = dict(np.load(ASSETS / "decompositions.npz"))
    out = {}
    for kind in ("image", "video"):
        out[kind] = {name: unpack(f"{kind}/{name}", arrays) for name in KINDS}
        out[kind]["test_embeddings"] = arrays[f"{kind}/test_embeddings"].astype(np.float64)
    return out, json.loads((ASSETS / "comparison.json").read_text())


if __name__ == "__main__":
    doc = ship()
    for kind, table in doc["tables"].items():
        print(kind)
        for row in table:
            print("  ", {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
