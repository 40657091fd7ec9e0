"""A tiny real ONNX card model for the tests, built with the ``onnx`` helper API (no torch).

Its output has the shape of an exported YOLO detector, ``(batch, 4 + classes, anchors)``,
and holds the same fixed predictions for every image of a batch, in model-input pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from referee.vision.recognize import CLASSES

Prediction = tuple[int, float, float, float, float, float]  # class, cx, cy, w, h, score


def build_card_model(path: Path, predictions: Sequence[Prediction], imgsz: int = 320,
                     fixed: bool = False, names: Sequence[str] = CLASSES) -> Path:
    """Write the model to ``path``: input ``images`` (n, 3, h, w), dynamic unless ``fixed``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nc = len(names)
    anchors = max(8, len(predictions))
    raw = np.zeros((1, 4 + nc, anchors), np.float32)
    raw[0, :4, :] = [[10], [10], [4], [4]]  # empty anchors: a tiny box with no score
    for k, (cls, cx, cy, w, h, score) in enumerate(predictions):
        raw[0, :4, k] = [cx, cy, w, h]
        raw[0, 4 + cls, k] = score
    shape_in = [1, 3, imgsz, imgsz] if fixed else ["batch", 3, "height", "width"]
    nodes = [
        helper.make_node("Shape", ["images"], ["in_shape"]),
        helper.make_node("Slice", ["in_shape", "zero", "one"], ["batch"]),
        helper.make_node("Concat", ["batch", "rest"], ["out_shape"], axis=0),
        helper.make_node("Expand", ["raw", "out_shape"], ["output0"]),
    ]
    inits = [numpy_helper.from_array(raw, "raw"),
             numpy_helper.from_array(np.array([0], np.int64), "zero"),
             numpy_helper.from_array(np.array([1], np.int64), "one"),
             numpy_helper.from_array(np.array([4 + nc, anchors], np.int64), "rest")]
    graph = helper.make_graph(
        nodes, "cards", [helper.make_tensor_value_info("images", TensorProto.FLOAT, shape_in)],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", 4 + nc, anchors])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for key, value in {"names": repr(dict(enumerate(names))), "imgsz": f"[{imgsz}, {imgsz}]",
                       "task": "detect", "stride": "32"}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())
    return path
