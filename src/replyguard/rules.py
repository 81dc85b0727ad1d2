"""Rule files: finding, reading and merging the shipped .metta files with a user's directory.

Each file is split into top-level forms with their line numbers before hyperon parses them, so a
syntax error is reported as "file:line: message". A user file is loaded after the shipped ones and
overrides by left-hand side: a definition `(= (config accept-threshold) 0.8)` replaces the shipped
definition whose left-hand side is the same up to variable names; anything else is added.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path

from hyperon import Atom, ExpressionAtom, SExprParser, Tokenizer, atoms_are_equivalent

from replyguard.errors import RuleError

SHIPPED_PACKAGE = "replyguard.metta"


@dataclass(frozen=True)
class RuleForm:
    """One top-level form of a rule file, where it came from, and its parsed atom."""

    atom: Atom
    file: str
    line: int
    text: str

    @property
    def lhs(self) -> Atom | None:
        """The left-hand side of an equality `(= LHS RHS)`, else None."""
        children = self.atom.get_children() if isinstance(self.atom, ExpressionAtom) else []
        if len(children) == 3 and str(children[0]) == "=":
            return children[1]
        return None

    @property
    def head(self) -> str | None:
        """The name a form defines or states: `f` for `(= (f ...) ...)` and for `(f ...)`."""
        target = self.lhs if self.lhs is not None else self.atom
        if isinstance(target, ExpressionAtom) and target.get_children():
            return str(target.get_children()[0])
        return None


def shipped_rule_files() -> list[tuple[str, str]]:
    """(display name, text) of every shipped .metta file, in load order."""
    root = importlib.resources.files(SHIPPED_PACKAGE)
    files = sorted((p for p in root.iterdir() if p.name.endswith(".metta")), key=_load_order)
    return [(f"metta/{p.name}", p.read_text(encoding="utf-8")) for p in files]


def user_rule_files(directory: str | Path) -> list[tuple[str, str]]:
    d = Path(directory)
    if not d.is_dir():
        raise RuleError(f"{d}: rules directory not found")
    out = []
    for path in sorted(d.glob("*.metta")):
        try:
            out.append((str(path), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise RuleError(f"{path}: cannot read rule file ({exc.__class__.__name__})") from None
    return out


def _load_order(path: object) -> tuple[int, str]:
    name = getattr(path, "name", str(path))
    return (0 if name == "types.metta" else 1, name)


def split_forms(text: str, origin: str) -> list[tuple[int, str]]:
    """Top-level forms with their 1-based starting lines; unbalanced brackets are errors."""
    forms: list[tuple[int, str]] = []
    depth = 0
    line = 1
    start = -1
    start_line = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 1
                if j < n and text[j] == "\n":
                    raise RuleError(
                        f"{origin}:{line}: string literal runs past the end of the line"
                    )
                j += 1
            if j >= n:
                raise RuleError(f"{origin}:{line}: unclosed string literal")
            if depth == 0:
                forms.append((line, text[i : j + 1]))
            i = j + 1
            continue
        elif c == "(":
            if depth == 0:
                start, start_line = i, line
            depth += 1
        elif c == ")":
            if depth == 0:
                raise RuleError(f"{origin}:{line}: unexpected ')'")
            depth -= 1
            if depth == 0:
                forms.append((start_line, text[start : i + 1]))
        elif c == "!" and depth == 0:
            raise RuleError(
                f"{origin}:{line}: rule files hold definitions; '!' is not allowed here"
            )
        elif not c.isspace() and depth == 0:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "();":
                j += 1
            forms.append((line, text[i:j]))
            i = j
            continue
        i += 1
    if depth:
        raise RuleError(f"{origin}:{start_line}: '(' is never closed")
    return forms


def parse_forms(text: str, origin: str, tokenizer: Tokenizer) -> list[RuleForm]:
    forms = []
    for line, source in split_forms(text, origin):
        try:
            atom = SExprParser(source).parse(tokenizer)
        except SyntaxError as exc:
            raise RuleError(f"{origin}:{line}: {exc}") from None
        if atom is None:
            continue
        forms.append(RuleForm(atom, origin, line, source))
    return forms


def merge_forms(
    base: list[RuleForm], later: list[RuleForm]
) -> tuple[list[RuleForm], list[RuleForm]]:
    """Add a later file's forms; each of its definitions replaces earlier ones with the same
    left-hand side. Returns (merged forms, replaced forms). Clauses within one file never replace
    each other, so a file may still define a function by several clauses."""
    lhss = [f.lhs for f in later if f.lhs is not None]
    kept: list[RuleForm] = []
    replaced: list[RuleForm] = []
    for old in base:
        if old.lhs is not None and any(atoms_are_equivalent(old.lhs, lhs) for lhs in lhss):
            replaced.append(old)
        else:
            kept.append(old)
    return kept + later, replaced
