"""The ``spit-referee`` command line."""

from referee.cli.main import main

__all__ = ["main"]
