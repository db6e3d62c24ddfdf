"""How the commands fail: one line on stderr and an exit code, never a traceback by default."""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import Iterator

import typer

from hsd_cli.errors import HsdError, UsageError

try:  # typer >= 0.2x ships its own copy of click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover
    from click.exceptions import ClickException, NoArgsIsHelpError


@contextlib.contextmanager
def one_line_errors(debug: bool) -> Iterator[None]:
    """HsdError -> one line on stderr and its exit code (plus the traceback with --debug)."""
    try:
        yield
    except HsdError as e:
        if debug:
            traceback.print_exc()
        typer.echo(f"hsd: error: {e}", err=True)
        raise typer.Exit(e.exit_code) from None


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """ValueError from the config records is the user's mistake: a UsageError (exit 2)."""
    try:
        yield
    except ValueError as e:
        raise UsageError(str(e)) from e


def main(app: typer.Typer) -> None:
    """Console-script entry: click's own errors also become one line (exit 2 for usage)."""
    try:
        code = app(standalone_mode=False)
    except NoArgsIsHelpError as e:
        typer.echo(e.ctx.get_help() if e.ctx else str(e), err=True)
        code = UsageError.exit_code
    except ClickException as e:
        typer.echo(f"hsd: error: {e.format_message()}", err=True)
        code = e.exit_code
    except typer.Abort:
        code = 130
    sys.exit(code or 0)
