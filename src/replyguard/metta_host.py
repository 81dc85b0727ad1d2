"""The hyperon host: one MeTTa runner, the &kb / &dialogue / &reply spaces, grounded operations,
the loaded rules, and evaluation of rule calls.

The interpreter costs a fraction of a millisecond per reduction, so the host evaluates rule calls
built as atoms (no text parsing) and remembers the verdicts of *pure* rule functions — those whose
definitions never touch a space — keyed by the call. A pure rule applied to the same evidence
always gives the same verdict, so each distinct piece of evidence is evaluated once until the
rules are reloaded.

A call is interpreted step by step under a budget (replyguard.limits), from the atom itself: text
never round-trips through hyperon's printer and parser, so a long value reaches the rules whole.
One lock serialises the host: hyperon's spaces may not be used from two threads at once.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import hyperonpy as hp
from hyperon import (
    E,
    ExpressionAtom,
    G,
    GroundedAtom,
    GroundingSpaceRef,
    MeTTa,
    OperationAtom,
    S,
    SymbolAtom,
    V,
    ValueAtom,
    VariableAtom,
)
from hyperon.atoms import Atom, AtomType, IncorrectArgumentError, NoReduceError, ValueObject

from replyguard.errors import InputError, RuleError
from replyguard.limits import RULE_STEP_LIMIT, STEPS_PER_ATOM, display_text, safe_text, short
from replyguard.models import Explanation
from replyguard.rules import (
    RuleForm,
    merge_forms,
    parse_forms,
    rule_form_problem,
    shipped_rule_files,
    user_rule_files,
)

# Operations that read or change a space (or are not functions of their arguments).
_IMPURE_PRIMITIVES = {
    "match",
    "add-atom",
    "remove-atom",
    "get-atoms",
    "new-space",
    "bind!",
    "new-state",
    "change-state!",
    "get-state",
    "random-int",
    "random-float",
    "py-atom",
    "py-dot",
    "py-call",
    "import!",
    "println!",
    "trace!",
}
SPACES = ("&kb", "&dialogue", "&reply")
_MEMO_LIMIT = 200_000
_RESULT_NESTING = 100  # Python's walkers over atoms (from_atom) recurse once per level
_STRING = S("String")
_METTA = S("metta")
_STRING_TOKEN = r"(?s)^\".*\"$"  # as hyperon's stdlib writes it: a string literal


class Sym(str):
    """A MeTTa symbol decoded to Python (distinct from a string value)."""


class TextValue(ValueObject):
    """A string value whose display (what hyperon prints, keys and explanations use) stays
    short and is cut between characters; it equals any other string value of the same text."""

    def __repr__(self) -> str:
        return display_text(self.content)


def text_atom(text: str) -> Atom:
    """A string as an atom hyperon can hold and show, however long or odd the text."""
    return G(TextValue(safe_text(text)), _STRING)


def sym(name: str) -> Atom:
    """A symbol named by host text (an id, a speaker): NUL and lone surrogates replaced."""
    return S(safe_text(name))


def to_atom(value: object) -> Atom:
    """Python data as an atom: Sym -> symbol, str -> String, tuples -> expressions."""
    if isinstance(value, Atom):
        return value
    if isinstance(value, Sym):
        return sym(str(value))
    if isinstance(value, bool):
        return ValueAtom(value, "Bool")
    if isinstance(value, int | float):
        # floats throughout: MeTTa's "/" on two integers truncates, and 1 == 1.0 in comparisons
        return ValueAtom(float(value), "Number")
    if isinstance(value, str):
        return text_atom(value)
    if isinstance(value, tuple | list):
        return E(*(to_atom(v) for v in value))
    if value is None:
        return S("None")
    raise TypeError(f"cannot encode {type(value).__name__} as an atom")


def from_atom(atom: Atom) -> object:
    if isinstance(atom, SymbolAtom):
        return Sym(atom.get_name())
    if isinstance(atom, GroundedAtom):
        try:
            return atom.get_object().content
        except TypeError:  # a grounded operation of the core (and, case, ...): its name
            return Sym(str(atom))
    if isinstance(atom, ExpressionAtom):
        return tuple(from_atom(a) for a in atom.get_children())
    if isinstance(atom, VariableAtom):
        return Sym(str(atom))
    return str(atom)


def call(head: str, *args: object) -> Atom:
    return E(S(head), *(to_atom(a) for a in args))


def _numbers(expr: object) -> list[float]:
    if isinstance(expr, ExpressionAtom):
        return [float(from_atom(a)) for a in expr.get_children()]  # type: ignore[arg-type]
    raise TypeError("expected an expression of numbers")


def _grounded_operations() -> dict[str, tuple[Callable[..., object], list[str]]]:
    """Aggregations the rules use on lists of numbers: mechanisms, not decisions.

    Typed so that MeTTa passes a list as data instead of trying to evaluate it as a call."""

    def num(a: Atom) -> float:
        return float(from_atom(a))  # type: ignore[arg-type]

    return {
        "mean-of": (
            lambda xs: sum(_numbers(xs)) / len(_numbers(xs)) if _numbers(xs) else 0.0,
            ["Expression", "Number"],
        ),
        "sum-of": (lambda xs: float(sum(_numbers(xs))), ["Expression", "Number"]),
        "count-above": (
            lambda xs, t: sum(1 for x in _numbers(xs) if x > num(t)),
            ["Expression", "Number", "Number"],
        ),
        "count-at-least": (
            lambda xs, t: sum(1 for x in _numbers(xs) if x >= num(t)),
            ["Expression", "Number", "Number"],
        ),
        "length-of": (
            lambda xs: len(xs.get_children()) if isinstance(xs, ExpressionAtom) else 0,
            ["Expression", "Number"],
        ),
        "min-of": (lambda a, b: min(num(a), num(b)), ["Number", "Number", "Number"]),
        "max-of": (lambda a, b: max(num(a), num(b)), ["Number", "Number", "Number"]),
        "clamp01": (lambda a: min(1.0, max(0.0, num(a))), ["Number", "Number"]),
        "percent-of": (lambda a: int(math.floor(num(a) * 100 + 0.5)), ["Number", "Number"]),
    }


class MettaHost:
    """Owns the runner, the spaces and the rules; evaluates rule calls."""

    def __init__(
        self,
        rules_dir: str | Path | None = None,
        overrides: dict[str, object] | None = None,
        extra_operations: dict[str, tuple[Callable[..., object], list[str]]] | None = None,
    ) -> None:
        self.metta = MeTTa()
        self.lock = threading.RLock()
        self.step_limit = RULE_STEP_LIMIT
        # The rules' module space (&self, the stdlib imported): `case` and `let` need it as the
        # interpreter's space too, which is why MeTTa.evaluate_atom (the bare space) falls short.
        self._self = self.metta.parse_single("&self")
        self._space = self._self.get_object()
        # String literals (of rule files, REPL lines, trace exports) and the stdlib's own text
        # makers give TextValues, whose display never overruns hyperon's buffer.
        self.metta.register_token(_STRING_TOKEN, lambda token: text_atom(token[1:-1]))
        for name, (fn, types) in _text_operations().items():
            self.metta.register_atom(name, _operation(name, fn, types))
        self.spaces = {name: GroundingSpaceRef() for name in SPACES}
        for name, space in self.spaces.items():
            self.metta.register_atom(name, G(space))
        operations = {**_grounded_operations(), **(extra_operations or {})}
        self.operation_names = tuple(operations)
        for name, (fn, types) in operations.items():
            self.metta.register_atom(name, _operation(name, fn, types))
        self.rules_dir = Path(rules_dir) if rules_dir is not None else None
        self.overrides = dict(overrides or {})
        self.forms: list[RuleForm] = []
        self._installed: list[Atom] = []
        self.replaced: list[RuleForm] = []
        self._memo: OrderedDict[str, list[Atom]] = OrderedDict()
        self._decoded: OrderedDict[tuple[object, ...], object] = OrderedDict()
        self._pure: set[str] = set()
        self.load_rules()

    @property
    def kb(self) -> GroundingSpaceRef:
        return self.spaces["&kb"]

    @property
    def dialogue(self) -> GroundingSpaceRef:
        return self.spaces["&dialogue"]

    @property
    def reply(self) -> GroundingSpaceRef:
        return self.spaces["&reply"]

    # ------------------------------------------------------------------ rules

    def load_rules(self) -> None:
        """(Re)load the shipped rules and then the user directory's, replacing the rule space."""
        with self.lock:
            self._load_rules()

    def _load_rules(self) -> None:
        tokenizer = self.metta.tokenizer()
        forms: list[RuleForm] = []
        for origin, text in shipped_rule_files():
            forms.extend(parse_forms(text, origin, tokenizer))
        replaced: list[RuleForm] = []
        self.user_files: set[str] = set()
        if self.rules_dir is not None:
            for origin, text in user_rule_files(self.rules_dir):
                forms, gone = merge_forms(forms, parse_forms(text, origin, tokenizer))
                replaced.extend(gone)
                self.user_files.add(origin)
        if self.overrides:
            known = {
                str(f.lhs.get_children()[1])
                for f in forms  # type: ignore[union-attr]
                if f.head == "config" and f.lhs is not None and len(f.lhs.get_children()) == 2
            }
            unknown = [k for k in self.overrides if k not in known]
            if unknown:
                raise InputError(f"config: unknown setting {unknown[0]!r}")
            text = "\n".join(
                f"(= (config {key}) {str(to_atom(value))})" for key, value in self.overrides.items()
            )
            forms, gone = merge_forms(forms, parse_forms(text, "<config argument>", tokenizer))
            replaced.extend(gone)
        for form in forms:
            problem = rule_form_problem(form)
            if problem is not None:
                raise RuleError(f"{form.file}:{form.line}: {problem}")
        space = self.metta.space()
        for atom in self._installed:
            space.remove_atom(atom)
        self._installed = _inline_config(forms)
        for atom in self._installed:
            space.add_atom(atom)
        self.forms, self.replaced = forms, replaced
        self._pure = _pure_functions(forms)
        self._defined = {f.head for f in forms if f.lhs is not None and f.head}
        self._facts: dict[str, list[tuple[object, ...]]] = {}
        for form in forms:
            if form.lhs is None and form.head is not None:
                args = tuple(from_atom(a) for a in form.atom.get_children()[1:])
                self._facts.setdefault(form.head, []).append(args)
        self._memo.clear()
        self._decoded.clear()
        self._clause_spaces: dict[str, GroundingSpaceRef] = {}
        self._clause_cache: dict[str, list[RuleForm]] = {}

    def facts(self, head: str) -> list[tuple[object, ...]]:
        """Arguments of every rule-file fact `(head a b ...)`, decoded, in file order."""
        return self._facts.get(head, [])

    def definition_of(self, head: str) -> list[RuleForm]:
        return [f for f in self.forms if f.lhs is not None and f.head == head]

    # ------------------------------------------------------------------ evaluation

    def evaluate(self, expr: Atom, head: str | None = None) -> list[Atom]:
        """All results of a rule call; pure calls are remembered. `head` is the called function
        when the caller knows it (reading it back from the atom costs more than the lookup)."""
        head = _head(expr) if head is None else head
        key = str(expr) if head in self._pure else None
        with self.lock:
            if key is not None:
                hit = self._memo.get(key)
                if hit is not None:
                    self._memo.move_to_end(key)
                    return hit
            results = self.interpret(expr)
            for r in results:
                if (
                    isinstance(r, ExpressionAtom)
                    and r.get_children()
                    and str(r.get_children()[0]) == "Error"
                ):
                    raise RuleError(
                        f"rule call {short(str(expr), 120)} failed: {short(str(r))}"
                        f"{self._where(expr)}"
                    )
            if key is not None:
                self._memo[key] = results
                if len(self._memo) > _MEMO_LIMIT:
                    self._memo.popitem(last=False)
        return results

    def interpret(self, expr: Atom) -> list[Atom]:
        """Evaluate an atom as `!EXPR` would (the metta interpreter over the rules' space), one
        step at a time, stopping at the step budget; results nested too deeply are refused."""
        wrapped = E(_METTA, expr, AtomType.UNDEFINED, self._self)  # kept alive while it runs
        has_next, step = hp.step_has_next, hp.interpret_step
        # a rule walks its arguments: a list of 5,000 numbers takes ~150,000 steps to sum up
        limit = self.step_limit + STEPS_PER_ATOM * _size(expr)
        with self.lock:
            state = hp.interpret_init(self._space.cspace, wrapped.catom)
            steps = 0
            while has_next(state):
                steps += 1
                if steps > limit:
                    del state  # frees what the runaway call built
                    raise RuleError(
                        f"rule call {short(str(expr), 120)} did not finish within "
                        f"{limit:,} interpreter steps (a rule that never ends?)"
                        f"{self._where(expr)}"
                    )
                state = step(state)
            results = [Atom._from_catom(c) for c in hp.step_get_result(state)]
        for r in results:
            if _too_deep(r, _RESULT_NESTING):
                raise RuleError(
                    f"rule call {short(str(expr), 120)} gave a result nested more than "
                    f"{_RESULT_NESTING} deep{self._where(expr)}"
                )
        return results

    def _where(self, expr: Atom) -> str:
        """ " (file:line, ...)": the clauses of the called rule, for an error message."""
        head = _head(expr)
        forms = self.matching_clauses(expr) or (self.definition_of(head) if head else [])
        return f" ({', '.join(f'{f.file}:{f.line}' for f in forms[:3])})" if forms else ""

    def value(self, head: str, *args: object) -> object:
        """The single result of a deterministic rule call, decoded to Python. A pure call's
        value is remembered by its arguments as Python holds them, so a repeated call builds no
        atom at all."""
        key = ("value", head, _argument_key(args)) if head in self._pure else None
        if key is not None:
            with self.lock:
                if key in self._decoded:
                    self._decoded.move_to_end(key)
                    return self._decoded[key]
        out = self._value(head, args)
        if key is not None:
            with self.lock:
                self._decoded[key] = out
                if len(self._decoded) > _MEMO_LIMIT:
                    self._decoded.popitem(last=False)
        return out

    def _value(self, head: str, args: tuple[object, ...]) -> object:
        expr = call(head, *args)
        results = self.evaluate(expr, head)
        if len(results) != 1:
            raise RuleError(
                f"rule call {expr} gave {len(results)} results; a decision needs one "
                f"(check the definitions of {head!r})"
            )
        out = from_atom(results[0])
        if isinstance(out, tuple) and out and out[0] == head:
            raise RuleError(f"no rule matches {expr} (see the definitions of {head!r})")
        if isinstance(out, tuple) and out and isinstance(out[0], Sym) and out[0] in self._defined:
            raise RuleError(  # a call inside the rule that no clause of its function matches
                f"rule call {short(str(expr), 120)} gave {short(str(results[0]), 120)}: no "
                f"clause of '{out[0]}' matches{self._where(expr)}"
            )
        return out

    def choice(self, head: str, allowed: Iterable[str], *args: object) -> str:
        """The result of a rule call that must be one of `allowed` symbols (a kind, a level)."""
        out = self.value(head, *args)
        options = list(allowed)
        if not isinstance(out, Sym) or out not in options:
            expr = call(head, *args)
            raise RuleError(
                f"rule call {short(str(expr), 120)} gave {short(str(to_atom(out)), 80)}, not one "
                f"of {', '.join(options)}{self._where(expr)}"
            )
        return str(out)

    def explain(
        self,
        head: str,
        *args: object,
        atoms: list[str] | None = None,
        because: list[Explanation] | None = None,
    ) -> Explanation:
        """The rule call, its result, and the rule-file clauses whose left side matches it."""
        expr = call(head, *args)
        results = self.evaluate(expr, head)
        return Explanation(
            rule=str(expr),
            result=", ".join(str(r) for r in results),
            clauses=[f"{f.file}:{f.line}" for f in self.matching_clauses(expr, head)],
            atoms=atoms or [],
            because=because or [],
        )

    def matching_clauses(self, expr: Atom, head: str | None = None) -> list[RuleForm]:
        """Definitions whose left-hand side unifies with the call (the clauses that fire)."""
        head = _head(expr) if head is None else head
        if head is None:
            return []
        key = str(expr)
        cached = self._clause_cache.get(key)
        if cached is not None:
            return cached
        space = self._clause_spaces.get(head)
        if space is None:
            space = self._clause_spaces[head] = GroundingSpaceRef()
            for i, form in enumerate(self.forms):
                if form.lhs is not None and form.head == head:
                    space.add_atom(E(S("clause"), ValueAtom(i, "Number"), form.lhs))
        found = sorted(
            int(from_atom(b["i"]))
            for b in space.query(  # type: ignore[arg-type]
                E(S("clause"), V("i"), expr)
            )
        )
        clauses = [self.forms[i] for i in found]
        if len(self._clause_cache) < _MEMO_LIMIT:
            self._clause_cache[key] = clauses
        return clauses

    def holds(self, head: str, *args: object) -> bool:
        """Whether a relation holds: a call that reduces to True. A call no clause matches is a
        relation that does not hold (MeTTa leaves it unreduced), not an error."""
        results = self.evaluate(call(head, *args), head)
        return any(from_atom(r) is True for r in results)

    def query(self, space: str, pattern: str) -> list[dict[str, object]]:
        """A direct (non-interpreted) query of a space; variables bound per match, decoded."""
        with self.lock:
            atom = self.metta.parse_single(pattern)
            names = _variables(atom)
            out = []
            for bindings in self.spaces[space].query(atom):
                out.append({n: from_atom(bindings[n]) for n in names if bindings[n] is not None})
        return out


def _text_operations() -> dict[str, tuple[Callable[..., object], list[str]]]:
    """The stdlib's operations that make text, giving TextValues (their own give plain
    strings, which hyperon cannot show once they are long)."""
    return {
        "repr": (lambda a: str(a), ["Atom", "String"]),
        "charsToString": (  # a Char shows as 'c'
            lambda a: "".join(str(c)[1:-1] for c in a.get_children()),
            ["Atom", "String"],
        ),
    }


def _operation(name: str, fn: Callable[..., object], types: list[str]) -> Atom:
    def wrapped(*atoms: Atom) -> list[Atom]:
        try:
            return [to_atom(fn(*atoms))]
        except (NoReduceError, IncorrectArgumentError):
            raise
        except Exception as exc:  # noqa: BLE001 - hyperon turns it into an Error atom
            # hyperon copies the message into a 4,096-byte buffer and panics on a cut character
            raise RuntimeError(f"{name}: {exc.__class__.__name__}: {short(str(exc))}") from None

    return OperationAtom(name, wrapped, types, unwrap=False)


def _size(atom: Atom) -> int:
    """How many atoms an atom holds, itself included (walked without recursion)."""
    count, pending = 0, [atom]
    while pending:
        a = pending.pop()
        count += 1
        if isinstance(a, ExpressionAtom):
            pending.extend(a.get_children())
    return count


def _too_deep(atom: Atom, limit: int) -> bool:
    """Whether an atom nests expressions more than `limit` deep (walked without recursion)."""
    level = [atom]
    for _ in range(limit + 1):
        level = [c for a in level if isinstance(a, ExpressionAtom) for c in a.get_children()]
        if not level:
            return False
    return True


def _inline_config(forms: list[RuleForm]) -> list[Atom]:
    """The atoms to install: rule bodies with each literal `(config key)` replaced by its value.

    A threshold is read on every rule call, and each read is an interpreter reduction; folding the
    literal values in when the rules are loaded keeps a verdict to a few reductions. The rule files
    (and the REPL's view of them) keep `(config key)`; a reload re-folds after any override.
    """
    literals: dict[str, Atom] = {}
    for form in forms:
        lhs = form.lhs
        if lhs is not None and form.head == "config" and len(lhs.get_children()) == 2:
            rhs = form.atom.get_children()[2]
            if not isinstance(rhs, ExpressionAtom | VariableAtom):
                literals[str(lhs.get_children()[1])] = rhs

    def fold(atom: Atom) -> Atom:
        if not isinstance(atom, ExpressionAtom):
            return atom
        children = atom.get_children()
        if len(children) == 2 and str(children[0]) == "config" and str(children[1]) in literals:
            return literals[str(children[1])]
        return E(*(fold(c) for c in children))

    installed = []
    for form in forms:
        lhs = form.lhs
        if lhs is None or form.head == "config":
            installed.append(form.atom)
        else:
            installed.append(E(S("="), lhs, fold(form.atom.get_children()[2])))
    return installed


def _argument_key(value: object) -> object:
    """Rule-call arguments as a memo key: equal exactly when `to_atom` gives equal atoms (a
    symbol, a string and a truth value stay apart; an integer is the float it is encoded as)."""
    if isinstance(value, tuple | list):
        return tuple(_argument_key(v) for v in value)
    if isinstance(value, Sym):
        return ("Sym", str(value))
    if isinstance(value, bool):
        return ("Bool", value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return ("String", value)
    if isinstance(value, Atom):
        return ("Atom", str(value))
    if value is None:
        return None
    raise TypeError(f"cannot encode {type(value).__name__} as an atom")


def _head(expr: Atom) -> str | None:
    if isinstance(expr, ExpressionAtom) and expr.get_children():
        return str(expr.get_children()[0])
    return None


def _variables(atom: Atom) -> list[str]:
    found: list[str] = []

    def walk(a: Atom) -> None:
        if isinstance(a, VariableAtom):
            name = str(a).lstrip("$")
            if name not in found:
                found.append(name)
        elif isinstance(a, ExpressionAtom):
            for c in a.get_children():
                walk(c)

    walk(atom)
    return found


def _symbols(atom: Atom, out: set[str]) -> None:
    if isinstance(atom, SymbolAtom):
        out.add(atom.get_name())
    elif isinstance(atom, GroundedAtom):
        name = str(atom)
        # a space inside a rule body means the rule reads state; other grounded atoms by name
        out.add("match" if name.startswith("GroundingSpace") else name)
    elif isinstance(atom, ExpressionAtom):
        for c in atom.get_children():
            _symbols(c, out)


def _pure_functions(forms: list[RuleForm]) -> set[str]:
    """Functions whose definitions (transitively) never touch a space or other state."""
    uses: dict[str, set[str]] = {}
    for form in forms:
        head = form.head
        if form.lhs is None or head is None:
            continue
        body: set[str] = set()
        _symbols(form.atom.get_children()[2], body)
        uses.setdefault(head, set()).update(body)
    impure = {h for h, body in uses.items() if body & _IMPURE_PRIMITIVES}
    changed = True
    while changed:
        changed = False
        for head, body in uses.items():
            if head not in impure and body & impure:
                impure.add(head)
                changed = True
    return set(uses) - impure


__all__ = ["MettaHost", "Sym", "call", "from_atom", "to_atom", "V"]
