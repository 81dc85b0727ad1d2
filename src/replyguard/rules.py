"""Rule files: finding, reading and merging the shipped .metta files with a user's directory.

Each file is split into top-level forms with their line numbers before hyperon parses them, so a
syntax error is reported as "file:line: message"; forms nested deeper than hyperon's parser can
take are refused there too. Rules read the spaces and decide: a form that would change a space or
the runner, a fact that holds a space, or a setting whose value is not a plain value is a rule
error at load (`rule_form_problem`). A user file is loaded after the shipped ones and
overrides by left-hand side: a definition `(= (config accept-threshold) 0.8)` replaces the shipped
definition whose left-hand side is the same up to variable names; anything else is added.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path

from hyperon import (
    Atom,
    ExpressionAtom,
    GroundedAtom,
    SExprParser,
    SymbolAtom,
    Tokenizer,
    VariableAtom,
    atoms_are_equivalent,
)
from hyperon.base import SpaceRef

from replyguard.errors import RuleError
from replyguard.limits import MAX_NESTING

SHIPPED_PACKAGE = "replyguard.metta"
# What changes a space, a state or the runner, loads code, or makes atoms from text (hyperon
# 0.2.6's stdlib and its Python extension): a rule never needs these to decide.
STATE_CHANGING = frozenset(
    "add-atom remove-atom add-atoms add-reduct add-reducts new-space new-state change-state! "
    "bind! import! include mod-space! register-module! git-module! pragma! parse load-ascii "
    "py-atom py-dot py-call py-list py-tuple py-dict".split()
)


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


def split_forms(text: str, origin: str, *, program: bool = False) -> list[tuple[int, str]]:
    """Top-level forms with their 1-based starting lines; unbalanced brackets, and brackets
    nested more than MAX_NESTING deep (hyperon's parser would overflow its stack), are errors.
    A rule file may not hold `!`; a `program` (a REPL line) may."""
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
            if depth > MAX_NESTING:
                raise RuleError(f"{origin}:{line}: brackets nested more than {MAX_NESTING} deep")
        elif c == ")":
            if depth == 0:
                raise RuleError(f"{origin}:{line}: unexpected ')'")
            depth -= 1
            if depth == 0:
                forms.append((start_line, text[start : i + 1]))
        elif c == "!" and depth == 0 and not program:
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


def rule_form_problem(form: RuleForm) -> str | None:
    """Why a parsed form cannot be a rule or a fact, or None when it can."""
    names: set[str] = set()
    holds_space = False
    pending = [form.atom]
    while pending:
        atom = pending.pop()
        if isinstance(atom, ExpressionAtom):
            pending.extend(atom.get_children())
        elif isinstance(atom, SymbolAtom):
            names.add(atom.get_name())
        elif isinstance(atom, GroundedAtom):
            if _is_space(atom):
                holds_space = True
            else:
                names.add(str(atom))
    changing = sorted(names & STATE_CHANGING)
    if changing:
        return (
            f"'{changing[0]}' changes a space or the runner; rules may read the spaces "
            f"(match), never change them"
        )
    if form.lhs is None and holds_space:
        return "a fact cannot hold a space (&kb, &self ...): write the atoms themselves"
    if form.head == "config" and form.lhs is not None:
        value = form.atom.get_children()[2]
        if isinstance(value, ExpressionAtom | VariableAtom):
            return (
                f"the value of {form.lhs} must be a number, a boolean, a string or a symbol, "
                f"not {'a variable' if isinstance(value, VariableAtom) else 'an expression'}"
            )
    return None


def _is_space(atom: GroundedAtom) -> bool:
    try:
        return isinstance(atom.get_object(), SpaceRef)
    except TypeError:  # a grounded operation of the core (case, let, ...)
        return False
