"""Characters of a PDF's math fonts as LaTeX: symbols, Greek, TeX's CMEX codes, font families."""

from __future__ import annotations

import re
import unicodedata

_GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma tau"
_GREEK += " upsilon phi chi psi omega"
GREEK = {chr(0x3B1 + i): "\\" + name for i, name in enumerate(_GREEK.split()) if name != "omicron"}
GREEK.update({"ο": "o", "ϵ": "\\epsilon", "ε": "\\varepsilon", "ϑ": "\\vartheta", "ϕ": "\\phi", "φ": "\\varphi"})
GREEK.update({"ϱ": "\\varrho", "ϖ": "\\varpi", "ϰ": "\\varkappa", "µ": "\\mu"})  # µ: the micro sign
# Capitals without a command of their own are Latin letters in TeX (Alpha is A).
_CAPITALS = "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
GREEK.update({c: "\\" + n for c, n in zip("ΓΔΘΛΞΠΣΥΦΨΩ", _CAPITALS.split(" "), strict=True)})
GREEK.update(dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΧ", "ABEZHIKMNOPTX", strict=True)))
# The glyph names Delta and Omega read as INCREMENT and OHM SIGN (the Adobe glyph list's map):
# Computer Modern's upright capitals come out so.
GREEK.update({"\u2206": "\\Delta", "\u2126": "\\Omega"})

SYMBOLS = {
    "∈": "\\in", "∉": "\\notin", "∋": "\\ni", "⊂": "\\subset", "⊆": "\\subseteq", "⊃": "\\supset",
    "⊇": "\\supseteq", "∪": "\\cup", "∩": "\\cap", "∧": "\\wedge", "∨": "\\vee", "¬": "\\neg",
    "∀": "\\forall", "∃": "\\exists", "∅": "\\emptyset", "∞": "\\infty", "∂": "\\partial",
    "∇": "\\nabla", "≤": "\\leq", "≥": "\\geq", "≦": "\\leqq", "≧": "\\geqq", "≠": "\\neq",
    "≈": "\\approx", "≡": "\\equiv", "∼": "\\sim", "≃": "\\simeq", "≅": "\\cong", "∝": "\\propto",
    "±": "\\pm", "∓": "\\mp", "×": "\\times", "÷": "\\div", "·": "\\cdot", "⋅": "\\cdot",
    "∘": "\\circ", "∗": "\\ast", "⊕": "\\oplus", "⊗": "\\otimes", "⊙": "\\odot", "→": "\\to",
    "←": "\\leftarrow", "↔": "\\leftrightarrow", "⇒": "\\Rightarrow", "⇐": "\\Leftarrow",
    "⇔": "\\Leftrightarrow", "↦": "\\mapsto", "⟶": "\\longrightarrow", "↑": "\\uparrow", "↓": "\\downarrow",
    "…": "\\ldots", "⋯": "\\cdots", "⋮": "\\vdots", "⋱": "\\ddots", "⟨": "\\langle", "⟩": "\\rangle",
    "‖": "\\|", "{": "\\{", "}": "\\}", "∑": "\\sum", "∏": "\\prod", "∐": "\\coprod", "∫": "\\int",
    "∬": "\\iint", "∭": "\\iiint", "∮": "\\oint", "⋃": "\\bigcup", "⋂": "\\bigcap", "⨁": "\\bigoplus",
    "⨂": "\\bigotimes", "√": "\\sqrt", "−": "-", "∖": "\\setminus", "ℓ": "\\ell", "ℏ": "\\hbar",
    "ℜ": "\\Re", "ℑ": "\\Im", "ℵ": "\\aleph", "⊥": "\\perp", "∥": "\\parallel", "≪": "\\ll",
    "≫": "\\gg", "⊢": "\\vdash", "⊤": "\\top", "†": "\\dagger", "‡": "\\ddagger", "∠": "\\angle",
    "△": "\\triangle", "□": "\\square", "⌊": "\\lfloor", "⌋": "\\rfloor", "⌈": "\\lceil",
    "⌉": "\\rceil", "#": "\\#", "%": "\\%", "&": "\\&", "_": "\\_", "′": "\\prime", "″": "\\prime\\prime",
    "∣": "\\mid", "≺": "\\prec", "≻": "\\succ", "⪯": "\\preceq", "⪰": "\\succeq", "∵": "\\because",
    "∴": "\\therefore", "⊊": "\\subsetneq", "⊎": "\\uplus", "⊔": "\\sqcup", "⋆": "\\star", "•": "\\bullet",
    "⟹": "\\Longrightarrow", "⟸": "\\Longleftarrow", "⟺": "\\Longleftrightarrow", "∶": ":", "∕": "/",
    "\u2013": "-", "\u2061": "", "\u2062": "", "\u2009": "", "\u200b": "",
}  # fmt: skip
SYMBOLS.update({"≢": "\\not\\equiv", "≁": "\\nsim", "⊄": "\\not\\subset", "⊈": "\\nsubseteq", "≰": "\\nleq"})
SYMBOLS.update({"≱": "\\ngeq", "≮": "\\nless", "≯": "\\ngtr", "∌": "\\not\\ni"})
# Variation selectors after a big operator (acmart's `∫` reads U+222B U+FE01): they draw nothing.
SYMBOLS.update({chr(c): "" for c in range(0xFE00, 0xFE10)})
# A slash struck through a relation negates it: KaTeX's \not is its own glyph (U+E020 in
# KaTeX_Main), set over the `=` of `\neq` with the same box; U+0338 is Unicode's combining form.
NEGATED = {"=": "≠", "≡": "≢", "∈": "∉", "∋": "∌", "∼": "≁", "⊂": "⊄", "⊆": "⊈", "≤": "≰", "≥": "≱", "<": "≮", ">": "≯"}
NOT_SLASHES = frozenset("\ue020\u0338")
BIG_OPERATORS = frozenset("∑∏∐∫∬∭∮⋃⋂⨁⨂⋀⋁")
OPENERS, CLOSERS = "([{⟨⌊⌈|‖", ")]}⟩⌋⌉|‖"
ACCENTS = {"ˆ": "\\hat", "^": "\\hat", "˜": "\\tilde", "~": "\\tilde", "¯": "\\bar", "˙": "\\dot", "¨": "\\ddot"}
ACCENTS.update({"ˇ": "\\check", "˘": "\\breve", "´": "\\acute", "`": "\\grave", "⃗": "\\vec"})
# KaTeX sets \bar, \acute, \grave and \mathring with the modifier letters (U+02C9-02CB, U+02DA).
ACCENTS.update({"ˉ": "\\bar", "ˊ": "\\acute", "ˋ": "\\grave", "˚": "\\mathring"})
FUNCTIONS = frozenset(
    [
        "sin",
        "cos",
        "tan",
        "cot",
        "sec",
        "csc",
        "log",
        "ln",
        "exp",
        "lim",
        "max",
        "min",
        "sup",
        "inf",
        "det",
        "dim",
        "ker",
        "deg",
        "arg",
        "gcd",
        "Pr",
        "sinh",
        "cosh",
        "tanh",
        "coth",
        "arcsin",
        "arccos",
        "arctan",
        "lg",
        "hom",
    ]
)

# TeX's CMEX10 in its raw encoding (PDFs without a ToUnicode map for it): delimiter sizes and
# big operators. Pieces of extensible delimiters are left out: they carry no meaning alone.
_CMEX_DELIMS = "()[]⌊⌋⌈⌉{}⟨⟩|‖"
CMEX = {chr(i): c for i, c in enumerate(_CMEX_DELIMS)}
CMEX.update({chr(0x10 + i): c for i, c in enumerate("()()[]⌊⌋⌈⌉{}⟨⟩")})
CMEX.update({chr(0x20 + i): c for i, c in enumerate("()[]⌊⌋⌈⌉{}⟨⟩")})
CMEX.update({chr(0x44): "⟨", chr(0x45): "⟩", chr(0x48): "∮", chr(0x49): "∮", chr(0x4C): "⊕", chr(0x4E): "⊗"})
CMEX.update({chr(0x50 + i): c for i, c in enumerate("∑∏∫⋃⋂⊎⋀⋁∑∏∫⋃⋂⊎⋀⋁∐∐")})
CMEX.update({chr(0x68 + i): c for i, c in enumerate("[]⌊⌋⌈⌉{}")})
CMEX.update({chr(0x70 + i): "√" for i in range(5)})
# How far below its origin each size of CMEX glyph reaches, in ems (its depth; TeX hangs them from
# the origin): (first code, last code, depth). Big operators' display sizes reach further.
_CMEX_DEPTHS = [(0x00, 0x0F, 1.2), (0x10, 0x11, 1.8), (0x12, 0x1F, 2.4), (0x20, 0x2F, 3.0), (0x50, 0x57, 1.0)]
_CMEX_DEPTHS += [(0x58, 0x59, 1.4), (0x5A, 0x5A, 2.2), (0x5B, 0x5F, 1.4), (0x61, 0x61, 1.4), (0x68, 0x6F, 1.8)]
_CMEX_DEPTHS += [(0x70, 0x70, 1.2), (0x71, 0x71, 1.8), (0x72, 0x72, 2.4), (0x73, 0x73, 3.0)]
# Delimiters in Unicode keep their meaning when a ToUnicode map names them.
_UNICODE_KEEP = frozenset("()[]{}|/\\⟨⟩⌊⌋⌈⌉‖∑∏∫√")

# Euler Roman (EURM, EURB: euler.sty's and eulervm's math letters) draws its variables upright,
# but they are math italic's letters all the same: `kT` is k times T, not an operator name.
_ITALIC = re.compile(r"ital|oblique|cmmi|cmti|mathit|txmi|pxmi|eur[mb]|-it\b|-bi\b|it$", re.I)
_BOLD = re.compile(r"bold|cmbx|cmmib|cmbsy|black|heavy|-bd|-b$", re.I)
# Fonts that only set mathematics (not CMR: LaTeX's body text is Computer Modern Roman too); a
# slanted Symbol is mathptmx's Greek, the only math font of a page whose formulas need no CMSY.
# KaTeX's fonts set its formulas alone, their upright words too (`\\operatorname{rank}`, `\\text`).
MATH_ONLY = re.compile(r"cmmi|cmsy|cmex|cmbsy|cmmib|msam|msbm|eu[frs][mb]|euex|rsfs|math|euclid|mtmi|mtsy|mtex|katex_|"
                       r"txmi|txsy|txex|pxmi|pxsy|pxex|xits|esint|wasy|stix.*(math|integrals|sizes)|"
                       r"sym\w*[-_ ]?slant", re.I)  # fmt: skip


# TeX's extension fonts by name, for those whose font box hides that their glyphs hang below
# the origin (Euler's EUEX declares a text font's ascent): their codes are CMEX's layout too.
_EXTENSION = re.compile(r"cmex|euex|txex|pxex|mtex", re.I)


def is_extension(font: str) -> bool:
    return bool(_EXTENSION.search(font))


def is_italic(font: str, flags: int) -> bool:
    return bool(flags & 2) or bool(_ITALIC.search(font))


def is_bold(font: str, flags: int) -> bool:
    return bool(flags & 16) or bool(_BOLD.search(font))


def alphanumeric_style(c: str) -> tuple[bool, bool]:
    """(italic, bold) of a Mathematical Alphanumeric Symbol (U+1D400...) by its Unicode name:
    a Unicode math font's letters carry their style in the code point, not in the font."""
    if not "\U0001d400" <= c <= "\U0001d7ff":
        return False, False
    name = unicodedata.name(c, "")
    return "ITALIC" in name, "BOLD" in name


def glyph_char(c: str, extension: bool) -> str:
    """The character a glyph means: raw codes of an extension font (CMEX's layout, shared by its
    kin) decoded, math alphanumerics (U+1D400...) as letters."""
    if extension and c in CMEX and c not in _UNICODE_KEEP:
        return CMEX[c]
    if "\U0001d400" <= c <= "\U0001d7ff":
        return unicodedata.normalize("NFKC", c)
    return c


# The Symbol font's glyph names phi and phi1 read, by the Adobe glyph list, as U+03C6 and U+03D5,
# but its `phi` is drawn as TeX's \phi (a stroke through a loop, U+03D5) and `phi1` as \varphi:
# mathptmx sets \phi with the first.
_SYMBOL_FONT = re.compile(r"symbol|standardsym", re.I)
_SYMBOL_PHI = {"\u03c6": "\u03d5", "\u03d5": "\u03c6"}


def font_char(c: str, font: str) -> str:
    """The character `c` of `font` means where the font's own names mislead (Symbol's phis)."""
    return _SYMBOL_PHI.get(c, c) if _SYMBOL_FONT.search(font) else c


def extension_depth(c: str) -> float:
    """How many ems below its origin a glyph of an extension font reaches (its raw code's size)."""
    return next((d for lo, hi, d in _CMEX_DEPTHS if lo <= ord(c) <= hi), 1.2) if len(c) == 1 else 1.2


def family(font: str) -> str:
    """The LaTeX alphabet command a letter of this font is written with ("" for the default)."""
    low = font.lower()
    # KaTeX_AMS's letters, and txfonts'/pxfonts' symbol font B (their msbm): blackboard letters
    if re.search(r"msbm|bbold|doublestruck|_ams|[tp]xsyb", low):
        return "\\mathbb"
    if "eufm" in low or "fraktur" in low:
        return "\\mathfrak"
    if re.search(r"cmsy|cmbsy|[tp]xsy|eusm|cal+igraphic|script|rsfs", low):  # KaTeX_Caligraphic
        return "\\mathcal"
    return ""


def symbol(c: str) -> str:
    """LaTeX for one math character (letters and digits as themselves)."""
    if c in GREEK:
        return GREEK[c]
    return SYMBOLS.get(c, c)
