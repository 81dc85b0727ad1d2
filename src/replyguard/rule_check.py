"""`replyguard rules check`: load the shipped and a user's rules and grammars, report problems.

A rule file that parses can still be wrong: a misspelt function name is just an unreduced
expression to MeTTa, and the verdict silently never comes. This check reads every definition's
body and names each call to something that is neither defined, a built-in, nor a grounded
operation; each `(config KEY)` whose key does not exist; each user definition that gives a
constant the shipped definitions of the same function never give (`Banana` for a
recommendation); and each seed signature in metta/types.metta that has no definition. It then
tries the rules on sample evidence (replyguard.rule_trial), so a rule that never ends or returns
what the host cannot read is found before use. Problems carry file and line. An engine refuses
to start on the unknown calls, settings and constants of a user's files (`user_rule_problems`).
"""

from __future__ import annotations

import importlib.resources
import re
from dataclasses import dataclass
from pathlib import Path

from hyperon import ExpressionAtom, GroundedAtom, SymbolAtom
from hyperon.atoms import Atom
from lark import Lark
from lark.exceptions import LarkError
from lark.lexer import Lexer

from replyguard.errors import RuleError
from replyguard.metta_host import MettaHost
from replyguard.rule_trial import trial_problems
from replyguard.rules import RuleForm
from replyguard.seed_api import SeedOperations
from replyguard.text.lexicon import word_list_problems

# hyperon 0.2.6's standard library, and the symbols rules use as values rather than calls.
BUILTINS = frozenset(
    "if case switch let let* match collapse superpose unify car-atom cdr-atom cons-atom "
    "decons-atom quote unquote empty == + - * / % < > <= >= and or not xor get-type "
    "get-metatype println! trace! nop assertEqual assertEqualToResult add-atom remove-atom "
    "get-atoms new-space new-state get-state change-state! bind! import! pragma! sealed capture "
    "chain eval evalc function return collapse-bind superpose-bind metta id apply max-atom "
    "min-atom size-atom index-atom repr parse format-args noeval if-equal if-decons-expr "
    "if-unify foldl-atom map-atom filter-atom : -> = True False".split()
)
# Arguments that are patterns (shapes to match), not calls: (match SPACE PATTERN TEMPLATE),
# (let PATTERN VALUE BODY), (unify A B THEN ELSE), and each (PATTERN RESULT) branch of case.
_PATTERN_ARGS = {"match": (2,), "let": (1,), "unify": (1, 2)}
_GRAMMARS = ("claims.lark", "question.lark", "temporal.lark")


@dataclass(frozen=True)
class Problem:
    where: str  # file:line
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class RuleReport:
    forms: int
    files: int
    overridden: int
    problems: list[Problem]


def check_rules(rules_dir: str | Path | None = None) -> RuleReport:
    """Every problem found (a syntax error stops the check and is the only problem)."""
    try:
        host = MettaHost(rules_dir, extra_operations=SeedOperations().operations())
    except RuleError as exc:
        where, _, message = str(exc).partition(": ")
        return RuleReport(0, 0, 0, [Problem(where, message)])
    problems = [
        *(Problem(f"{f.file}:{f.line}", message) for f, message in word_list_problems(host.forms)),
        *_unknown_calls(host),
        *_unknown_results(host),
        *_missing_seed_definitions(host),
        *_grammar_problems(rules_dir),
    ]
    if not problems:  # a trial of rules already known to be wrong would only repeat that
        problems = [Problem(where, message) for where, message in trial_problems(rules_dir)]
    return RuleReport(
        len(host.forms), len({f.file for f in host.forms}), len(host.replaced), problems
    )


def _known_names(host: MettaHost) -> set[str]:
    defined = {f.head for f in host.forms if f.lhs is not None and f.head}
    grounded = {str(k) for k in host.operation_names}
    return defined | grounded | BUILTINS


def user_rule_problems(host: MettaHost) -> list[Problem]:
    """The unknown calls, settings and result constants of the user's rule files."""
    return [
        p
        for p in (*_unknown_calls(host), *_unknown_results(host))
        if p.where.rpartition(":")[0] in host.user_files
    ]


def _unknown_results(host: MettaHost) -> list[Problem]:
    """User clauses giving a constant that no shipped clause of the function gives, where the
    shipped clauses give only constants (a kind, a level): the host would not know its meaning."""
    shipped: dict[str, set[str] | None] = {}  # None: some shipped clause gives more than these
    for form in [*host.replaced, *host.forms]:
        if form.file in host.user_files or form.lhs is None or not form.head:
            continue
        constants = _constant_results(form)
        known = shipped.get(form.head, set())
        shipped[form.head] = None if constants is None or known is None else known | constants
    problems = []
    for form in host.forms:
        given = shipped.get(form.head or "")
        if form.file not in host.user_files or form.lhs is None or not given:
            continue
        for symbol in sorted((_constant_results(form) or set()) - given):
            problems.append(
                Problem(
                    f"{form.file}:{form.line}",
                    f"'{form.head}' gives {symbol}, which its shipped rules never give "
                    f"(they give {', '.join(sorted(given))})",
                )
            )
    return problems


def _constant_results(form: RuleForm) -> set[str] | None:
    """The capitalised symbols a definition gives as its whole result (the body, the branches of
    if, the results of case and switch, the body of let and let*), or None when it can give
    anything else too."""
    found: set[str] = set()
    pending = [form.atom.get_children()[2]]
    while pending:
        atom = pending.pop()
        children = atom.get_children() if isinstance(atom, ExpressionAtom) else []
        head = str(children[0]) if children else ""
        if isinstance(atom, SymbolAtom) and atom.get_name()[:1].isupper():
            found.add(atom.get_name())
        elif head == "if" and len(children) == 4:
            pending += children[2:]
        elif head in ("let", "let*") and len(children) in (3, 4):
            pending.append(children[-1])
        elif head in ("case", "switch") and len(children) == 3:
            branches = children[2].get_children() if isinstance(children[2], ExpressionAtom) else []
            pending += [
                b.get_children()[1]
                for b in branches
                if isinstance(b, ExpressionAtom) and len(b.get_children()) == 2
            ]
        else:
            return None
    return found


def _unknown_calls(host: MettaHost) -> list[Problem]:
    known = _known_names(host)
    config = {
        str(f.lhs.get_children()[1])
        for f in host.forms  # type: ignore[union-attr]
        if f.head == "config" and f.lhs is not None
    }
    problems: list[Problem] = []
    for form in host.forms:
        if form.lhs is None or form.head == "config":
            continue
        body = form.atom.get_children()[2]
        for call_head, arg in _calls(body):
            where = f"{form.file}:{form.line}"
            if call_head == "config":
                if arg not in config:
                    problems.append(Problem(where, f"unknown setting (config {arg})"))
            elif call_head not in known:
                problems.append(
                    Problem(
                        where,
                        f"unknown predicate '{call_head}' in the definition of "
                        f"'{form.head}' (not defined, not built in)",
                    )
                )
    return problems


def _calls(atom: Atom) -> list[tuple[str, str | None]]:
    """(head, first argument) of every call inside a rule body, skipping pattern positions."""
    out: list[tuple[str, str | None]] = []
    if not isinstance(atom, ExpressionAtom):
        return out
    children = atom.get_children()
    if not children:
        return out
    head = children[0]
    name = (
        head.get_name()
        if isinstance(head, SymbolAtom)
        else (str(head) if isinstance(head, GroundedAtom) else None)
    )
    skip = _PATTERN_ARGS.get(name or "", ())
    if name is not None and _is_call_name(name):
        out.append((name, str(children[1]) if len(children) > 1 else None))
    for i, child in enumerate(children[1:], start=1):
        if i in skip:
            continue
        if name == "case" and i == 2 and isinstance(child, ExpressionAtom):
            for branch in child.get_children():  # (PATTERN RESULT): only the result is code
                parts = branch.get_children() if isinstance(branch, ExpressionAtom) else []
                if len(parts) == 2:
                    out.extend(_calls(parts[1]))
            continue
        out.extend(_calls(child))
    return out


def _is_call_name(name: str) -> bool:
    """Function-like symbols (lower case); Capitalised symbols are data constructors."""
    return bool(name) and name[0].islower() and not name.startswith("$")


def _missing_seed_definitions(host: MettaHost) -> list[Problem]:
    defined = {f.head for f in host.forms if f.lhs is not None}
    problems = []
    for form in host.forms:
        if form.head != ":" or not form.file.endswith("types.metta"):
            continue
        children = form.atom.get_children()
        name = str(children[1])
        signature = children[2]
        is_function = (
            isinstance(signature, ExpressionAtom) and str(signature.get_children()[0]) == "->"
        )
        if is_function and name not in defined:
            problems.append(
                Problem(f"{form.file}:{form.line}", f"seed predicate '{name}' has no definition")
            )
    return problems


class _NoLexer(Lexer):
    """Grammars are checked for their rules only; each module brings its own tokens."""

    def __init__(self, lexer_conf: object) -> None:
        del lexer_conf

    def lex(self, data: object):  # noqa: ANN201 - Lark's Lexer interface
        return iter(())


def _grammar_problems(rules_dir: str | Path | None) -> list[Problem]:
    sources = [
        (f"grammars/{name}", (importlib.resources.files("replyguard.grammars") / name).read_text())
        for name in _GRAMMARS
    ]
    if rules_dir is not None:
        sources += [
            (str(p), p.read_text(encoding="utf-8", errors="replace"))
            for p in sorted(Path(rules_dir).glob("*.lark"))
        ]
    problems = []
    for origin, text in sources:
        try:
            Lark(text, parser="earley", lexer=_NoLexer)
        except LarkError as exc:
            first = str(exc).strip().splitlines()[0]
            found = re.search(r"line (\d+)", str(exc))
            line = getattr(exc, "line", None) or (found.group(1) if found else None)
            problems.append(Problem(f"{origin}:{line}" if line else origin, first))
    return problems
