"""Error kinds shared by the whole package.

Every error that the command line reports to a user (instead of a traceback) derives from
:class:`RefereeError`. Bad input from outside (files, devices, arguments) is an
:class:`InputError`, which is also a :class:`ValueError`, and says what is wrong and where.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error the referee reports to a user as a plain message."""


class InputError(RefereeError, ValueError):
    """Input from outside the program is wrong: names what and where.

    ``where`` is a location such as ``"game.jsonl:12"`` or ``"calibration/x.yaml: field 'mat'"``.
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class MissingPrerequisite(RefereeError):
    """Something the command needs is not there (no calibration, no model, no port).

    The message says what to do about it.
    """
