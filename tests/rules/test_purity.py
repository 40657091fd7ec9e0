"""The rules engine is pure: importing it loads no numpy, OpenCV, serial or file-I/O module."""

import ast
import subprocess
import sys
from pathlib import Path

import referee.rules

FORBIDDEN = ["numpy", "cv2", "serial", "onnxruntime", "torch", "referee.eventlog", "json", "pathlib",
             "shutil", "sqlite3", "socket"]


def test_fresh_interpreter_loads_no_forbidden_module() -> None:
    code = ("import sys; before = set(sys.modules); import referee.rules, referee.cards, referee.events; "
            f"print(sorted(m for m in {FORBIDDEN!r} if m in set(sys.modules) - before))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_rules_source_calls_no_file_functions() -> None:
    for path in Path(referee.rules.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("open", "print", "input"), f"{path.name}:{node.lineno}"
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(n.split(".")[0] in ("os", "io", "subprocess") for n in names), path.name
