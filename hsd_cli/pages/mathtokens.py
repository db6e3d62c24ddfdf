"""A formula row's atoms (LaTeX tokens, left to right) joined into its LaTeX: fences and spacing.

- A bracket pair is `\\left(`..`\\right)` when it holds scripts or built pieces (TeX sizes it
  to them) or when the opener stands a thin space after an ordinary atom (what TeX puts before
  an inner atom: `f\\left(x\\right)` shows a gap `f(x)` does not), or when the closer's
  superscript is raised as on a box, not a character (formula.py measures it).
- `∥` opening a group (first, or after an operator) and the next one closing it are the norm
  bars `\\|`, not the relation `\\parallel` (`P\\parallel Q`).
- A stretched `(` or `[` left open at the row's end (a display clipped at its column's edge)
  is closed there: `\\left(`..`\\right)`.
- `(mod p)` is `\\pmod{p}` (the quad TeX sets before it is its own).
- An ordinary atom a thin space after an ordinary atom or a closing bracket, where TeX sets no
  space, has the source's `\\,` before it.
"""

from __future__ import annotations

import re

from hsd_cli.pages.mathchars import GREEK

_FENCES = {"(": ")", "[": "]", "\\{": "\\}", "\\|": "\\|"}
_CLOSERS = (")", "]", "\\}", "\\|")
_INSIDE = re.compile(r"[_^]\{|\\frac|\\sqrt|\\left|\\begin|\\binom")
_NOT_ORDINARY = re.compile(r"^(=|\+|-|<|>|,|\(|\[|\\\{|\\[a-z]*(eq|leq|geq|neq|approx|equiv|sim|times|cdot|pm|to|in)$)")
_GREEK = frozenset(GREEK.values())
_STYLES = frozenset(["mathbf", "mathbb", "mathcal", "mathrm", "mathfrak", "boldsymbol", "hat", "bar", "vec", "dot"])
_QUAD_PMOD = re.compile(r"\\q?quad\s*(?=\\pmod)")
_PMOD = re.compile(r"(?:\\left)?\(\\operatorname\{mod\}\s*([^()]+?)(?:\\right)?\)")


def joined(
    tokens: list[str], apart: list[bool], boxed: list[bool] | None = None, tall: list[bool] | None = None
) -> str:
    """The row's LaTeX; `apart[i]`: token i stands a thin space or more after the one before;
    `boxed[i]`: token i's scripts are set as on a box (a `\\right)` closes there); `tall[i]`:
    token i is a stretched bracket."""
    tokens = _norms(tokens)
    fenced = _fenced(tokens, apart, boxed or [False] * len(tokens), tall or [False] * len(tokens))
    latex = _join(_thin_spaces(fenced, apart))
    # `\\pmod` sets its own quad before the bracket: the gap measured there is no `\\quad` of its own.
    return _QUAD_PMOD.sub("", _PMOD.sub(r"\\pmod{\1}", _balanced(latex)))


def _norms(tokens: list[str]) -> list[str]:
    out, open_ = list(tokens), False
    for i, t in enumerate(tokens):
        if not re.match(r"\\parallel(?![a-z])", t):
            continue
        if open_ or i == 0 or _NOT_ORDINARY.match(tokens[i - 1]):
            out[i] = "\\|" + t[len("\\parallel") :]
            open_ = not open_
    return out


def _fenced(tokens: list[str], apart: list[bool], boxed: list[bool], tall: list[bool]) -> list[str]:
    out, stack = _bars(tokens, boxed), []
    for i, t in enumerate(tokens):
        closes = _closer(t)
        if stack and closes and closes == _FENCES[tokens[stack[-1]]]:
            j = stack.pop()
            spaced = apart[j] and j > 0 and _ordinary(tokens[j - 1])
            if spaced or boxed[i] or any(_INSIDE.search(x) for x in tokens[j + 1 : i]):
                out[j], out[i] = "\\left" + tokens[j], "\\right" + t
        elif t in _FENCES:
            stack.append(i)
    # A stretched ( or [ that nothing closes (its closer cut off where a page clips a wide
    # display) is TeX's \left: its \right closes the row, as LaTeX needs it to.
    for j in reversed(stack):
        if tall[j] and tokens[j] in "([":
            out[j] = "\\left" + tokens[j]
            out.append("\\right" + _FENCES[tokens[j]])
    return out


def _thin_spaces(tokens: list[str], apart: list[bool]) -> list[str]:
    """`\\,` before an ordinary atom set a thin space after an ordinary atom or a closing bracket:
    TeX puts no space between them, so the space is the source's (`m\\,\\ddot{x}`, `e^{-x}\\,dx`)."""
    out = list(tokens)
    for i in range(1, len(apart)):
        before = tokens[i - 1]
        if apart[i] and _ordinary(tokens[i]) and (_ordinary(before) or _closer(before.removeprefix("\\right"))):
            out[i] = "\\," + tokens[i]
    return out


def _bars(tokens: list[str], boxed: list[bool]) -> list[str]:
    """`|x|^2` whose closing bar's superscript sits as on a box: `\\left|x\\right|^{2}`."""
    out = list(tokens)
    for i, t in enumerate(tokens):
        opener = next((j for j in range(i - 1, -1, -1) if out[j] == "|"), None) if boxed[i] else None
        if t.startswith("|") and opener is not None:
            out[opener], out[i] = "\\left|", "\\right" + t
    return out


def _ordinary(token: str) -> bool:
    """A letter, digit, Greek letter or styled letter: an ordinary atom (an operator, `\\int`, is not)."""
    command = re.match(r"\\([A-Za-z]+)", token)
    return token[:1].isalnum() or (command is not None and (command[0] in _GREEK or command[1] in _STYLES))


def _closer(token: str) -> str:
    """The bracket a token closes with, its scripts aside (`)^{\\times}` closes `)`); "" if none."""
    return next((c for c in _CLOSERS if token.startswith(c)), "")


def _join(tokens: list[str]) -> str:
    """Tokens side by side, a space only where a command name would run into a letter."""
    out = ""
    for t in tokens:
        if out and re.search(r"\\[A-Za-z]+$", out) and t[:1].isalnum():
            out += " "
        out += t
    return out


def _balanced(latex: str) -> str:
    """`\\left`/`\\right` kept only when they pair up in this row (an unpaired one breaks KaTeX)."""
    opened = len(re.findall(r"\\left(?![a-z])", latex))
    if opened == len(re.findall(r"\\right(?![a-z])", latex)):
        return latex
    return re.sub(r"\\(left|right)(?![a-z])", "", latex)
