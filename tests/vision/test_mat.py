"""The mat layout file, its checks, and the rendered mat."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import yaml

from referee.errors import InputError
from referee.players import Player
from referee.vision.markers import MarkerDetector
from referee.vision.mat import (
    DEFAULT_LAYOUT,
    REQUIRED_ZONES,
    MatLayout,
    ZoneKind,
    load_layout,
    mat_pixel,
    parse_layout,
    render_mat,
)


def raw_default() -> dict[str, Any]:
    return yaml.safe_load(DEFAULT_LAYOUT.read_text())


def test_default_layout_has_every_zone_and_enough_markers(layout: MatLayout) -> None:
    assert {z.id for z in layout.zones} == set(REQUIRED_ZONES)
    assert len(layout.markers) >= 8
    assert layout.size_mm == (594, 420)  # A2 landscape
    card_w, card_h = layout.card_mm
    for zone in layout.zones:
        width, length = zone.size
        assert width >= card_w + 10 and length >= card_h + 10, zone.id


@pytest.mark.parametrize(
    ("zone_id", "owner", "kind", "number"),
    [
        ("A.stock1", Player.A, ZoneKind.STOCK, 1),
        ("B.stock5", Player.B, ZoneKind.STOCK, 5),
        ("A.packet", Player.A, ZoneKind.PACKET, None),
        ("pile2", None, ZoneKind.PILE, 2),
    ],
)
def test_zone_ids_say_owner_kind_and_number(
    layout: MatLayout, zone_id: str, owner: Player | None, kind: ZoneKind, number: int | None
) -> None:
    zone = layout.zone(zone_id)
    assert (zone.owner, zone.kind, zone.number) == (owner, kind, number)


def test_zones_are_where_the_players_sit(layout: MatLayout) -> None:
    def x(zone_id: str) -> float:
        return layout.zone(zone_id).center[0]

    def y(zone_id: str) -> float:
        return layout.zone(zone_id).center[1]

    # A at the bottom numbers left to right; B at the top numbers left to right as B sees it.
    assert [x(f"A.stock{i}") for i in range(1, 6)] == sorted(x(f"A.stock{i}") for i in range(1, 6))
    assert [x(f"B.stock{i}") for i in range(1, 6)] == sorted(
        (x(f"B.stock{i}") for i in range(1, 6)), reverse=True
    )
    assert y("A.stock1") > y("pile1") > y("B.stock1")
    assert x("pile1") < x("pile2")  # pile1 on A's left
    # a zone's polygon starts at its owner's top-left: for B that is the mat's bottom-right
    b = layout.zone("B.stock1").polygon()
    assert b[0][0] == b[:, 0].max() and b[0][1] == b[:, 1].max()


def test_hash_ignores_formatting_and_names(tmp_path: Path, layout: MatLayout) -> None:
    data = raw_default()
    data["name"] = "renamed"
    data["description"] = "other words"
    data["zones"] = dict(reversed(list(data["zones"].items())))
    path = tmp_path / "mat.yaml"
    path.write_text("# a comment\n" + yaml.safe_dump(data, sort_keys=True))
    assert load_layout(path).sha256 == layout.sha256
    data["aruco"]["markers"][0]["center"] = [41, 61]
    path.write_text(yaml.safe_dump(data))
    assert load_layout(path).sha256 != layout.sha256


def _set(path: str, value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


DELETE = object()


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (_set("format", "something/2"), "format", "expected 'spit-referee-mat/1'"),
        (_set("size_mm", [594]), "size_mm", "list of 2 numbers"),
        (_set("size_mm", [594, -1]), "size_mm", "positive"),
        (_set("aruco/dictionary", "DICT_9X9_7"), "aruco.dictionary", "unknown ArUco"),
        (_set("aruco/markers/1/id", 0), "aruco.markers[1].id", "used twice"),
        (_set("aruco/markers/1/id", 50), "aruco.markers[1].id", "not in DICT_4X4_50"),
        (_set("aruco/markers/1/id", "one"), "aruco.markers[1].id", "integer"),
        (_set("aruco/markers/0/center", [10, 10]), "aruco.markers[0]", "inside the mat"),
        (_set("aruco/markers/0/center", [100, 61]), "aruco.markers[0]", "zone B.stock5"),
        (_set("aruco/marker_size_mm", 0), "aruco.marker_size_mm", "positive"),
        (_set("zones/A.stock1/size", [60, 102]), "zones.A.stock1.size", "smaller than"),
        (_set("zones/A.stock1/center", [150, 359]), "zones.A.stock2", "overlaps zone A.stock1"),
        (_set("zones/A.stok1", {"center": [0, 0], "size": [76, 102]}), "zones.A.stok1", "unknown"),
        (_set("zones/A.stock1", DELETE), "zones", "missing zones: A.stock1"),
        (_set("zones/pile1/angle_deg", 45), "zones.pile1.angle_deg", "multiple of 90"),
        (_set("zones/pile1/center", [229, 600]), "zones.pile1", "not inside the mat"),
        (_set("labels/0/text", ""), "labels[0].text", "non-empty string"),
    ],
)
def test_bad_layouts_name_the_field(change: Any, field: str, message: str) -> None:
    data = copy.deepcopy(raw_default())
    change(data)
    with pytest.raises(InputError) as caught:
        parse_layout(data, "mat.yaml")
    assert f"mat.yaml: field '{field}'" in str(caught.value)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2", "YAML does not parse"),
        ("- a list\n", "expected a YAML mapping"),
        ("format: spit-referee-calibration/1\n", "not a mat layout"),
    ],
)
def test_unreadable_layout_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mat.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_layout(path)


def test_missing_layout_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such mat layout file"):
        load_layout(tmp_path / "nope.yaml")


@pytest.mark.parametrize("px_per_mm", [2.0, 3.7, 5.0])
def test_rendered_markers_sit_exactly_where_the_layout_says(
    layout: MatLayout, px_per_mm: float
) -> None:
    image = render_mat(layout, px_per_mm)
    assert image.shape == (round(420 * px_per_mm), round(594 * px_per_mm), 3)
    det = MarkerDetector(layout).detect(image)
    assert det.ids.tolist() == sorted(layout.marker_ids)
    expected = np.stack([mat_pixel(layout.marker(int(i)).corners(), px_per_mm) for i in det.ids])
    # corner finders are biased on a sharp L-corner; the centres (diagonal crossing) are not
    centre_err = np.linalg.norm(expected.mean(axis=1) - det.corners.mean(axis=1), axis=1)
    assert centre_err.max() < 0.1
    assert np.abs(expected - det.corners).max() < 1.0


def test_render_draws_zone_outlines_and_labels(layout: MatLayout) -> None:
    image = render_mat(layout, 2.0)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    x0, y0 = mat_pixel(layout.zone("A.stock1").polygon()[0], 2.0).round().astype(int)
    assert gray[y0 + 10, x0] < 100  # the outline's left edge
    cx, cy = mat_pixel(np.array(layout.zone("A.stock1").center), 2.0).round().astype(int)
    assert gray[cy - 12 : cy + 12, cx - 12 : cx + 12].min() < 200  # the "1" label
    with pytest.raises(ValueError):
        render_mat(layout, 0)
