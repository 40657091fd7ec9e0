"""Tiny real ONNX card models for the tests, built with the ``onnx`` helper API (no torch).

- The detector's output has the shape of an exported YOLO detector, ``(batch, 4 + 4, anchors)``
  (classes index, card, back, hand), and holds the same fixed predictions for every image of
  a batch, in pixels of an input ``imgsz`` wide (scaled with the input's width, so that, like
  a real model, it finds the same things at every scale).
- The corner-index classifier (``NAME-index.onnx`` beside it) has the shape of an exported
  YOLO classifier, ``(batch, 52)`` probabilities, its class names in a shuffled order (as
  ultralytics sorts folder names), and really looks at its input: a bright crop (mean > 0.5)
  is ``bright``, a dark one ``dark``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from referee.vision.recognize import CODES, DETECTOR_CLASSES, INDEX_CROP, index_model_path

Prediction = tuple[int, float, float, float, float, float]  # class, cx, cy, w, h, score


def _finish(model: object, path: Path, meta: dict[str, str]) -> Path:
    import onnx

    model.ir_version = 8  # type: ignore[attr-defined]
    for key, value in meta.items():
        entry = model.metadata_props.add()  # type: ignore[attr-defined]
        entry.key, entry.value = key, value
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())  # type: ignore[attr-defined]
    return path


def build_card_model(path: Path, predictions: Sequence[Prediction], imgsz: int = 320,
                     fixed: bool = False, names: Sequence[str] = DETECTOR_CLASSES,
                     index: bool = True) -> Path:
    """Write the detector to ``path`` (input ``images`` (n, 3, h, w), dynamic unless ``fixed``)
    and, with ``index``, the default classifier beside it (:func:`build_index_model`)."""
    from onnx import TensorProto, helper, numpy_helper

    nc = len(names)
    anchors = max(8, len(predictions))
    raw = np.zeros((1, 4 + nc, anchors), np.float32)
    raw[0, :4, :] = [[10], [10], [4], [4]]  # empty anchors: a tiny box with no score
    for k, (cls, cx, cy, w, h, score) in enumerate(predictions):
        raw[0, :4, k] = [cx, cy, w, h]
        raw[0, 4 + cls, k] = score
    shape_in = [1, 3, imgsz, imgsz] if fixed else ["batch", 3, "height", "width"]
    # like a real detector, it finds the same things at any input size: boxes scale with the
    # input's width (predictions are given for an input imgsz wide)
    nodes = [
        helper.make_node("Shape", ["images"], ["in_shape"]),
        helper.make_node("Slice", ["in_shape", "zero", "one"], ["batch"]),
        helper.make_node("Slice", ["in_shape", "three", "four"], ["width"]),
        helper.make_node("Cast", ["width"], ["width_f"], to=TensorProto.FLOAT),
        helper.make_node("Div", ["width_f", "imgsz"], ["factor"]),
        helper.make_node("Mul", ["raw", "factor"], ["scaled"]),
        helper.make_node("Mul", ["scaled", "box_rows"], ["boxes_part"]),
        helper.make_node("Mul", ["raw", "score_rows"], ["scores_part"]),
        helper.make_node("Add", ["boxes_part", "scores_part"], ["one_out"]),
        helper.make_node("Concat", ["batch", "rest"], ["out_shape"], axis=0),
        helper.make_node("Expand", ["one_out", "out_shape"], ["output0"]),
    ]
    box_rows = np.zeros((1, 4 + nc, 1), np.float32)
    box_rows[0, :4] = 1
    inits = [numpy_helper.from_array(raw, "raw"),
             numpy_helper.from_array(box_rows, "box_rows"),
             numpy_helper.from_array(1 - box_rows, "score_rows"),
             numpy_helper.from_array(np.array([float(imgsz)], np.float32), "imgsz"),
             numpy_helper.from_array(np.array([0], np.int64), "zero"),
             numpy_helper.from_array(np.array([1], np.int64), "one"),
             numpy_helper.from_array(np.array([3], np.int64), "three"),
             numpy_helper.from_array(np.array([4], np.int64), "four"),
             numpy_helper.from_array(np.array([4 + nc, anchors], np.int64), "rest")]
    graph = helper.make_graph(
        nodes, "cards", [helper.make_tensor_value_info("images", TensorProto.FLOAT, shape_in)],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", 4 + nc, anchors])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    _finish(model, path, {"names": repr(dict(enumerate(names))), "imgsz": f"[{imgsz}, {imgsz}]",
                          "task": "detect", "stride": "32"})
    if index:
        build_index_model(index_model_path(path))
    return path


def build_index_model(path: Path, bright: str = "QH", dark: str = "7C",
                      names: Sequence[str] | None = None, size: int = INDEX_CROP) -> Path:
    """Write the classifier: softmax(mean(input) * w + b), so that ``bright`` wins (p ~ 0.99)
    when the crop's mean is above 0.5 and ``dark`` below."""
    from onnx import TensorProto, helper, numpy_helper

    if names is None:
        names = sorted(CODES)  # ultralytics' order: folder names sorted
    nc = len(names)
    w = np.zeros((1, nc), np.float32)
    b = np.full((1, nc), -30.0, np.float32)
    if bright in names:
        w[0, list(names).index(bright)], b[0, list(names).index(bright)] = 20.0, -5.0
    if dark in names:
        b[0, list(names).index(dark)] = 5.0
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], axes=[1, 2, 3], keepdims=0),
        helper.make_node("Unsqueeze", ["mean", "axis1"], ["mean2"]),
        helper.make_node("MatMul", ["mean2", "w"], ["wx"]),
        helper.make_node("Add", ["wx", "b"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
             numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    graph = helper.make_graph(
        nodes, "index",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, size, size])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", nc])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return _finish(model, path, {"names": repr(dict(enumerate(names))), "imgsz": f"[{size}, {size}]",
                                 "task": "classify"})
