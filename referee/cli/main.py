"""The ``spit-referee`` command group.

Each area of the program registers its own subcommands from its own module
(``referee/cli/<area>.py`` with a ``register(group)`` function), so the group stays small.
Errors derived from :class:`referee.errors.RefereeError` and OS errors are printed as one
plain line and exit with status 2; nothing reaches the user as a traceback.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from referee import __version__
from referee.errors import RefereeError


class _FriendlyGroup(click.Group):
    """A click group that turns known errors into a one-line message and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (RefereeError, OSError) as exc:
            click.echo(f"spit-referee: error: {exc}", err=True)
            sys.exit(2)


@click.group(cls=_FriendlyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="spit-referee")
@click.option("-v", "--verbose", count=True, help="Log more (-v info, -vv debug).")
def main(verbose: int) -> None:
    """A camera referee for the card game Spit.

    Watches a game through a camera (or a recorded video), knows the state of the table,
    judges every play by the rules in RULES.md, and signals faults on an LED/buzzer board.
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def _register_all() -> None:
    from referee.cli import board, calibration, game, recognition, refereeing, reports, scoring, session, sim

    for area in (game, calibration, board, sim, recognition, refereeing, scoring, session, reports):
        area.register(main)


_register_all()
