"""User-facing errors: each carries a one-line message naming the cause."""

from __future__ import annotations


class HsdError(Exception):
    """An error the CLI reports as one line, without a traceback."""

    exit_code = 1


class InputError(HsdError):
    """A bad input document (corrupted, encrypted, empty, not a document, too large)."""


class OutputError(HsdError):
    """The output location cannot be written."""


class ModelNotFoundError(HsdError):
    """The target model cannot be loaded from a hub id or a directory."""

    exit_code = 3


class UsageError(HsdError):
    exit_code = 2
