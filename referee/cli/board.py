"""Subcommands for the board area (filled in by its issue)."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Add this area's subcommands to the ``spit-referee`` group."""
