"""The corrector's data, read from MeTTa atoms: rules, word classes, maps, costs and settings.

``metta/spelling.metta`` ships the defaults; a user's rule file adds atoms of the same shapes, and
an atom that names an existing rule, class, map, confusion set, cost or setting replaces it (the
last one read wins). The atoms are data, read once by Python; the MeTTa interpreter never runs per
token. The shapes (docs/spelling.md has the full reference):

    (syntax-rule NAME COST (pattern ELEMENT ...) ACTION "reason")
    (confusion-set NAME COST "word" "word" ...)
    (word-class NAME "word" ...)
    (word-map NAME ("from" "to") ...)
    (expansion "it's" "it" "is")
    (edit-cost NAME VALUE)
    (spelling-config NAME VALUE)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from hyperon import Atom, AtomKind

from replyguard.errors import RuleError
from replyguard.spelling.errormodel import EditCosts

BUILTIN_CLASSES = frozenset(
    {"word", "lowercase-word", "capitalised", "vowel-sound", "consonant-sound"}
)
ZERO_WIDTH = frozenset(
    {
        "start",
        "end",
        "open-end",
        "after",
        "not-after",
        "before",
        "not-before",
        "segment-starts-with",
    }
)
CONSUMING = frozenset({"word", "class", "key", "same", "not", "and"})
NESTING = frozenset(
    {"not", "and", "after", "not-after", "before", "not-before", "segment-starts-with"}
)
ACTIONS = {"replace": 3, "delete": 2, "capitalise": 2, "append": 3}  # atom length


@dataclass(frozen=True, slots=True)
class Element:
    """One pattern element: ``op`` with string ``args`` and nested ``parts``."""

    op: str
    args: tuple[str, ...] = ()
    parts: tuple[Element, ...] = ()

    @property
    def consumes(self) -> bool:
        return self.op in CONSUMING


@dataclass(frozen=True, slots=True)
class Action:
    op: str  # replace | delete | capitalise | append
    target: int
    text: str | None = None  # literal replacement or appended text
    map_name: str | None = None  # replace through a word-map


@dataclass(frozen=True, slots=True)
class SyntaxRule:
    name: str
    cost: float
    pattern: tuple[Element, ...]
    action: Action
    reason: str


@dataclass(frozen=True, slots=True)
class ConfusionSet:
    name: str
    cost: float
    words: tuple[str, ...]


@dataclass(frozen=True)
class RuleBook:
    rules: tuple[SyntaxRule, ...] = ()
    confusion_sets: tuple[ConfusionSet, ...] = ()
    classes: dict[str, frozenset[str]] = field(default_factory=dict)
    maps: dict[str, dict[str, str]] = field(default_factory=dict)
    expansions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    costs: EditCosts = EditCosts()
    config: dict[str, float] = field(default_factory=dict)

    def setting(self, name: str) -> float:
        if name not in self.config:
            raise RuleError(f"spelling: missing (spelling-config {name} VALUE)")
        return self.config[name]

    def word_class(self, name: str) -> frozenset[str]:
        return self.classes.get(name, frozenset())


def _text(atom: Atom) -> str:
    """A symbol's name or a grounded value, with a string's quotes removed.

    Atoms parsed by ``MeTTa().parse_all`` hold strings and numbers as grounded Python values and
    ``and``/``not`` as grounded operations; a bare ``SExprParser`` leaves everything a symbol.
    """
    if atom.get_metatype() == AtomKind.GROUNDED:
        try:
            return str(atom.get_object().value)  # type: ignore[attr-defined]
        except (TypeError, AttributeError):
            pass  # a grounded operation: its name is its text
    name = str(atom)
    if len(name) >= 2 and name[0] == name[-1] == '"':
        return name[1:-1]
    return name


def _number(atom: Atom, where: str) -> float:
    try:
        return float(_text(atom))
    except ValueError:
        raise RuleError(f"spelling: {where}: expected a number, got {atom}") from None


def _children(atom: Atom) -> list[Atom]:
    return list(atom.get_children()) if atom.get_metatype() == AtomKind.EXPR else []


def _element(atom: Atom, where: str) -> Element:
    parts = _children(atom)
    if not parts:
        word = _text(atom)
        if word in ZERO_WIDTH:
            return Element(word)
        return Element("word", (word.lower(),))
    op = _text(parts[0])
    if op in NESTING:
        nested = tuple(_element(p, where) for p in parts[1:])
        if not nested or any(not n.consumes for n in nested):
            raise RuleError(f"spelling: {where}: ({op} ...) needs word-matching elements")
        return Element(op, (), nested)
    if op in ("word", "class", "key", "same") and len(parts) >= 2:
        args = tuple(_text(p) for p in parts[1:])
        if op == "word":
            args = tuple(a.lower().replace("’", "'") for a in args)
        return Element(op, args)
    raise RuleError(f"spelling: {where}: unknown pattern element {atom}")


def _action(atom: Atom, where: str, width: int) -> Action:
    parts = _children(atom)
    op = _text(parts[0]) if parts else ""
    if op not in ACTIONS or len(parts) != ACTIONS[op]:
        raise RuleError(f"spelling: {where}: unknown action {atom}")
    try:
        target = int(_text(parts[1]))
    except ValueError:
        raise RuleError(f"spelling: {where}: action target must be an element index") from None
    if not 0 <= target < width:
        raise RuleError(f"spelling: {where}: action target {target} is not a pattern element")
    if len(parts) == 3:
        value = parts[2]
        inner = _children(value)
        if op == "replace" and inner and _text(inner[0]) == "map" and len(inner) == 2:
            return Action(op, target, map_name=_text(inner[1]))
        return Action(op, target, text=_text(value))
    return Action(op, target)


def _syntax_rule(parts: list[Atom]) -> SyntaxRule:
    name = _text(parts[1]) if len(parts) > 1 else "?"
    where = f"syntax-rule {name}"
    if len(parts) != 6:
        raise RuleError(
            f'spelling: {where}: expected (syntax-rule NAME COST (pattern ...) ACTION "reason")'
        )
    pattern_parts = _children(parts[3])
    if not pattern_parts or _text(pattern_parts[0]) != "pattern" or len(pattern_parts) < 2:
        raise RuleError(f"spelling: {where}: expected (pattern ELEMENT ...)")
    pattern = tuple(_element(p, where) for p in pattern_parts[1:])
    action = _action(parts[4], where, len(pattern))
    if not pattern[action.target].consumes:
        raise RuleError(f"spelling: {where}: action target {action.target} matches no word")
    return SyntaxRule(name, _number(parts[2], where), pattern, action, _text(parts[5]))


def _pairs(parts: list[Atom], where: str) -> dict[str, str]:
    mapping = {}
    for pair in parts:
        items = _children(pair)
        if len(items) != 2:
            raise RuleError(f'spelling: {where}: expected ("from" "to") pairs, got {pair}')
        mapping[_text(items[0]).lower()] = _text(items[1])
    return mapping


def read_rulebook(atoms: Iterable[Atom]) -> RuleBook:
    """Collect the spelling atoms among ``atoms`` (others are ignored); later atoms override."""
    rules: dict[str, SyntaxRule] = {}
    confusions: dict[str, ConfusionSet] = {}
    classes: dict[str, frozenset[str]] = {}
    maps: dict[str, dict[str, str]] = {}
    expansions: dict[str, tuple[str, ...]] = {}
    costs: dict[str, float] = {}
    config: dict[str, float] = {}
    cost_fields = EditCosts.names()
    for atom in atoms:
        parts = _children(atom)
        if not parts:
            continue
        head = _text(parts[0])
        if head == "syntax-rule":
            rule = _syntax_rule(parts)
            rules.pop(rule.name, None)
            rules[rule.name] = rule
        elif head == "confusion-set" and len(parts) >= 5:
            name = _text(parts[1])
            words = tuple(_text(p).lower() for p in parts[3:])
            confusions[name] = ConfusionSet(name, _number(parts[2], f"confusion-set {name}"), words)
        elif head == "word-class" and len(parts) >= 2:
            classes[_text(parts[1])] = frozenset(_text(p).lower() for p in parts[2:])
        elif head == "word-map" and len(parts) >= 2:
            name = _text(parts[1])
            maps[name] = _pairs(parts[2:], f"word-map {name}")
        elif head == "expansion" and len(parts) >= 4:
            expansions[_text(parts[1]).lower()] = tuple(_text(p).lower() for p in parts[2:])
        elif head == "edit-cost" and len(parts) == 3:
            name = _text(parts[1])
            if name not in cost_fields:
                raise RuleError(f"spelling: unknown edit-cost {name}; known: {sorted(cost_fields)}")
            costs[cost_fields[name]] = _number(parts[2], f"edit-cost {name}")
        elif head == "spelling-config" and len(parts) == 3:
            name = _text(parts[1])
            config[name] = _number(parts[2], f"spelling-config {name}")
    book = RuleBook(
        rules=tuple(rules.values()),
        confusion_sets=tuple(confusions.values()),
        classes=classes,
        maps=maps,
        expansions=expansions,
        costs=replace(EditCosts(), **costs),
        config=config,
    )
    _check_references(book)
    return book


def _check_references(book: RuleBook) -> None:
    classes = BUILTIN_CLASSES | book.classes.keys()
    for rule in book.rules:
        where = f"spelling: syntax-rule {rule.name}"
        for element in _walk(rule.pattern):
            unknown = [c for c in element.args if c not in classes]
            if element.op == "class" and unknown:
                raise RuleError(f"{where}: unknown word-class {unknown[0]}")
            if element.op == "key" and element.args[0] not in book.maps:
                raise RuleError(f"{where}: unknown word-map {element.args[0]}")
            if element.op == "same" and not (
                element.args[0].isdigit()
                and int(element.args[0]) < len(rule.pattern)
                and rule.pattern[int(element.args[0])].consumes
            ):
                raise RuleError(f"{where}: (same I) must name a word-matching element")
        if rule.action.map_name is not None and rule.action.map_name not in book.maps:
            raise RuleError(f"{where}: unknown word-map {rule.action.map_name}")


def _walk(elements: Sequence[Element]) -> Iterable[Element]:
    for element in elements:
        yield element
        yield from _walk(element.parts)
