"""Data bundled with the package (the demo game log)."""
