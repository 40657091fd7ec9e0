"""Self-contained HTML pages for the session reports (``dispute`` and ``report``).

A page is one file that opens in any browser with no server and no network: the style sheet
is inline, every picture is a ``data:`` URI (PNG), plots are drawn with matplotlib's Agg
backend (its DejaVu fonts ship inside matplotlib; nothing is fetched) and there is no script.

    page = Page("Dispute: pile 2 at 1.21 s", subtitle="session games/2024-05-01-a")
    page.warning("events.jsonl line 17: does not match its hash ...")
    page.section("The verdict", page.table([["rule", "P8"]]))
    page.write(Path("report.html"))

Also here, because both reports need them: the rule texts of RULES.md (:func:`rule_text`),
and small formatting helpers.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from referee.errors import InputError
from referee.players import Player

if TYPE_CHECKING:
    from referee.session.verify import Session

#: the player colours used in every picture and plot of the reports (RGB hex; BGR for OpenCV below)
PLAYER_COLOURS = {Player.A: "#d62828", Player.B: "#1d70b8"}
PLAYER_BGR = {Player.A: (40, 40, 214), Player.B: (184, 112, 29)}
HEADER_COLOUR = "#14213d"  # the page header's band (a test finds it in a browser's screenshot)
VERDICT_COLOURS = {"fault": "#b00020", "warning": "#b36b00", "legal": "#2b7a0b", "none": "#555555"}

CSS = f"""
* {{ box-sizing: border-box; }}
body {{ margin: 0; font-family: "DejaVu Sans", Verdana, sans-serif; font-size: 15px; color: #1b1b1b;
       background: #f4f4f0; }}
header {{ background: {HEADER_COLOUR}; color: #fff; padding: 14px 24px; height: 84px; }}
header h1 {{ margin: 0; font-size: 24px; }}
header p {{ margin: 4px 0 0; color: #cfd6e6; font-size: 13px; }}
main {{ padding: 12px 24px 32px; max-width: 1320px; }}
section {{ background: #fff; border: 1px solid #ddd; border-radius: 4px; margin: 14px 0;
           padding: 10px 16px; }}
h2 {{ font-size: 18px; margin: 4px 0 10px; }}
.verdict {{ color: #fff; padding: 12px 16px; border-radius: 4px; margin: 14px 0; font-size: 17px; }}
.verdict b {{ font-size: 20px; }}
.warning {{ background: #fff3cd; border: 1px solid #e0b84c; padding: 8px 12px; margin: 8px 0;
           border-radius: 4px; }}
.missing {{ color: #8a1c1c; font-style: italic; }}
table {{ border-collapse: collapse; margin: 6px 0; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; font-size: 14px; }}
th {{ background: #eceff4; }}
figure {{ display: inline-block; margin: 4px 8px 8px 0; vertical-align: top; }}
figcaption {{ font-size: 13px; color: #444; }}
img {{ display: block; border: 1px solid #999; }}
.rule {{ border-left: 4px solid #888; padding: 4px 10px; margin: 6px 0; background: #fafafa; }}
.small {{ font-size: 13px; color: #555; }}
code {{ font-size: 13px; }}
"""


def esc(value: object) -> str:
    """Text made safe for HTML."""
    return html.escape(str(value), quote=True)


def png_bytes(image: np.ndarray) -> bytes:
    """A BGR (or grey) image as PNG bytes."""
    import cv2

    ok, buf = cv2.imencode(".png", image)
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 image
        raise ValueError(f"cannot encode an image of shape {image.shape} as PNG")
    return bytes(buf.tobytes())


def data_uri(png: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(png).decode('ascii')}"


def img_tag(image: np.ndarray, *, width: int | None = None, alt: str = "", css_class: str = "") -> str:
    """An ``<img>`` of a BGR image, embedded as a PNG data URI. ``width`` (CSS px) scales the
    displayed picture; the height follows the aspect ratio."""
    w = width or image.shape[1]
    h = round(image.shape[0] * w / image.shape[1])
    if w < image.shape[1]:  # stored at the size shown: a smaller file, and what a browser shows anyway
        import cv2

        image = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
    cls = f' class="{esc(css_class)}"' if css_class else ""
    return f'<img{cls} src="{data_uri(png_bytes(image))}" width="{w}" height="{h}" alt="{esc(alt)}">'


def figure(image_tag: str, caption: str) -> str:
    return f"<figure>{image_tag}<figcaption>{caption}</figcaption></figure>"


def plot_tag(fig: Any, *, alt: str = "") -> str:
    """A matplotlib figure as an embedded PNG ``<img>`` (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    w, h = fig.canvas.get_width_height()
    plt.close(fig)
    return f'<img src="{data_uri(buf.getvalue())}" width="{w}" height="{h}" alt="{esc(alt)}">'


def new_figure(
    width_px: int, height_px: int, *, columns: int = 1, ratios: Sequence[float] | None = None, dpi: int = 100
) -> tuple[Any, Any]:
    """A matplotlib figure of this size in pixels and its axes (a tuple for ``columns`` > 1),
    on the Agg backend (no display)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    kw = {"width_ratios": list(ratios)} if ratios else None
    fig, ax = plt.subplots(1, columns, figsize=(width_px / dpi, height_px / dpi), dpi=dpi, gridspec_kw=kw)
    return fig, ax


def table(rows: Iterable[Sequence[object]], header: Sequence[str] | None = None, *, raw: bool = False) -> str:
    """An HTML table; cells are escaped unless ``raw`` (then they are HTML already)."""
    cell = (lambda v: str(v)) if raw else esc
    out = ["<table>"]
    if header:
        out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>")
    out.append("</table>")
    return "".join(out)


def missing(text: str) -> str:
    """A plain statement that a piece of evidence is not there, and why."""
    return f'<p class="missing">{esc(text)}</p>'


class Page:
    """One report page: a header band, warnings, sections; :meth:`html` gives the whole file."""

    def __init__(self, title: str, *, subtitle: str = "") -> None:
        self.title = title
        self.subtitle = subtitle
        self.parts: list[str] = []
        self.warnings: list[str] = []

    def warning(self, text: str) -> None:
        self.warnings.append(text)

    def add(self, html_text: str) -> None:
        self.parts.append(html_text)

    def section(self, heading: str, body: str, *, anchor: str = "") -> None:
        ident = f' id="{esc(anchor)}"' if anchor else ""
        self.parts.append(f"<section{ident}><h2>{esc(heading)}</h2>{body}</section>")

    def html(self) -> str:
        warnings = "".join(f'<div class="warning"><b>Warning:</b> {esc(w)}</div>' for w in self.warnings)
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(self.title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{esc(self.title)}</h1><p>{esc(self.subtitle)}</p></header>"
            f"<main>{warnings}{''.join(self.parts)}</main></body></html>\n"
        )

    def write(self, path: Path) -> Path:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.html(), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the report: {exc.strerror}", str(path)) from None
        return path


# ---------------------------------------------------------------------- the session


def session_warnings(session: Session, page: Page) -> None:
    """A warning on ``page`` for each damage or interruption ``verify`` found."""
    report = session.report
    for finding in report.findings:
        if finding.level == "bad":
            page.warning(
                f"the session is damaged: {finding}. The report uses what is intact (log lines "
                f"1-{report.log.verified} verified by their hashes)."
            )
        elif finding.level == "interrupted":
            page.warning(f"the recording was interrupted: {finding}")


def session_facts(session: Session) -> str:
    """The session's identity, software, calibration, models and verify state, as a table."""
    m = session.manifest
    software = m.get("software") or {}
    git = software.get("git") or {}
    models = (
        ", ".join(
            f"{x.get('file')} {str(x.get('sha256', ''))[:12]}"
            for x in m.get("models") or []
            if isinstance(x, dict)
        )
        or "none recorded"
    )
    report = session.report
    state = (
        "intact"
        if report.ok and not report.findings
        else ("intact (interrupted recording)" if report.ok else f"DAMAGED: {report.first_bad}")
    )
    rows: list[list[object]] = [
        ["id", m.get("id")],
        ["started", m.get("started")],
        [
            "software",
            f"{software.get('name')} {software.get('version')} (git {str(git.get('commit', '?'))[:10]})",
        ],
        [
            "calibration",
            f"{(m.get('calibration') or {}).get('file')} from {(m.get('calibration') or {}).get('from')}",
        ],
        ["card models", models],
        ["verify", state],
        ["log", f"{report.log.lines} lines, {report.log.verified} verified, head {report.log.head[:16]}..."],
    ]
    findings = "".join(f"<li>{esc(f.level)}: {esc(str(f))}</li>" for f in report.findings)
    return table(rows) + (f"<ul>{findings}</ul>" if findings else "")


# ---------------------------------------------------------------------- rules


def _rules_candidates() -> list[Path]:
    root = Path(__file__).resolve().parents[2]
    return [root / "RULES.md", root.parent / "shared" / "RULES.md"]


@cache
def _rules_md() -> tuple[dict[str, str], str]:
    """Every rule of RULES.md by id ("P8" -> its text) and the file read ("" when none found)."""
    for path in _rules_candidates():
        if path.is_file():
            return parse_rules(path.read_text(encoding="utf-8")), str(path)
    return {}, ""


def parse_rules(text: str) -> dict[str, str]:
    """The rules of a RULES.md text: ``- **P8** First touch: ...`` items (continued on indented
    lines) by id."""
    rules: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        m = re.match(r"^- \*\*([A-Z]\d+)\*\*\s*(.*)$", line)
        if m:
            current = m.group(1)
            rules[current] = m.group(2).strip()
        elif current is not None and line.startswith("  ") and line.strip():
            rules[current] += " " + line.strip()
        else:
            current = None
    return {k: v.replace("**", "") for k, v in rules.items()}


def rule_text(rule_id: str) -> tuple[str, str]:
    """(the text of rule ``rule_id``, where it came from). Falls back to the fault table of
    :mod:`referee.rules` when RULES.md is not beside the package."""
    rules, source = _rules_md()
    if rule_id in rules:
        return rules[rule_id], f"RULES.md {rule_id}"
    from referee.rules import Fault

    descriptions = [f"{f.code}: {f.description}" for f in Fault if f.rule == rule_id]
    if descriptions:
        return "; ".join(
            descriptions
        ), f"referee/rules fault table (RULES.md {'has no ' + rule_id if source else 'not found'})"
    return "", ""


def seconds(t: float | None) -> str:
    return "?" if t is None else f"{t:.3f} s"
