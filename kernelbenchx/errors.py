"""Errors a user can cause, each with a message, an optional hint and the exit code the CLI uses.

The CLI maps exactly these to a one-line message (and the traceback only with --debug); anything else is a
bug in kbx and keeps its traceback.
"""

from __future__ import annotations

USAGE = 2  # exit code of every user error
INTERRUPTED = 130  # 128 + SIGINT, as shells report it


class KbxError(Exception):
    """A problem with what the user asked for (bad input, bad option, unusable directory...)."""

    exit_code = USAGE

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint

    def __str__(self) -> str:
        return self.message


class UsageError(KbxError):
    """An option value or combination that cannot work."""


class SubmissionError(KbxError):
    """The submission as a whole cannot be read (missing file, unreadable folder, nothing in it)."""


class RunDirError(KbxError):
    """The results directory cannot be used (holds another run, not writable, nothing to resume)."""


class DeviceError(KbxError):
    """The requested device does not exist here."""


class IsolationError(KbxError):
    """--require-isolation and a layer is missing on this host."""


class Interrupted(KbxError):
    """The run was stopped by SIGINT or SIGTERM; what finished is saved."""

    exit_code = INTERRUPTED
