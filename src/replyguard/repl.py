"""`replyguard repl`: a prompt over the engine's MeTTa spaces, for finding out why a verdict is
what it is and trying a rule edit without leaving the session.

    !EXPR              evaluate MeTTa in the engine's runner (the rules, &kb, &dialogue, &reply)
    ?PATTERN [&SPACE]  query one space directly and print the bindings (default &kb)
    :COMMAND ARGS      load a case or a turn, check, list, explain, reload rules (`:help`)

Every line stands alone, so the same session can be typed at a terminal (line editing and
history through readline) or piped in as a script (no prompt, output only). A line that fails
prints one `error: ...` line and the session goes on; a session with any failed line exits 1, so
a script can tell.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from hyperon import E, ExpressionAtom, G, GroundingSpaceRef, S, V, VariableAtom
from hyperon.atoms import Atom

from replyguard.cases import case_kb, load_case
from replyguard.engine import Engine
from replyguard.errors import InputError, ReplyguardError
from replyguard.kb import complete_schema
from replyguard.limits import safe_text
from replyguard.metta_host import MettaHost, from_atom, sym, to_atom
from replyguard.models import Case, Explanation, PostprocessedResponse
from replyguard.report import render_report
from replyguard.rules import RuleForm, split_forms

PROMPT = "replyguard> "
HISTORY_ENV = "REPLYGUARD_HISTORY"
HISTORY_LENGTH = 1000
# (head E42 ...) and (held-by attr key E42): every place an entity id sits in a &kb atom,
# queried position by position so the cost does not grow with the KB.
_ENTITY_ARITIES = range(2, 7)


@dataclass(frozen=True)
class _Command:
    run: Callable[[str], bool | None]
    usage: str
    help: str


class Repl:
    """The session state behind the prompt: the engine, the loaded case, the dialogue fed turn by
    turn, and the last result; `handle` applies one input line."""

    def __init__(
        self,
        engine: Engine,
        *,
        rules_dir: str | None = None,
        trace: GroundingSpaceRef | None = None,
    ) -> None:
        self.engine = engine
        self.rules_dir = rules_dir
        self.trace = trace
        self.case: Case | None = None
        self.result: PostprocessedResponse | None = None
        self.session = engine.session()
        # The loaded case's question, used by `:check REPLY` until a `:turn` brings a newer one.
        self.query: str | None = None
        self._register_trace()
        self.commands: dict[str, _Command] = {
            "help": _Command(self._help, "", "this list"),
            "load": _Command(self._load, "CASE", "load a case file (KB, dialogue, query, reply)"),
            "turn": _Command(self._turn, "SPEAKER TEXT", "add a turn to the session's dialogue"),
            "check": _Command(
                self._check, "[REPLY]", "check the case's reply, or REPLY in the session"
            ),
            "claims": _Command(self._claims, "", "the last check's claims and verdicts"),
            "flags": _Command(self._flags, "", "the last check's hallucination flags"),
            "issues": _Command(self._issues, "", "the last check's coherence issues"),
            "explain": _Command(
                self._explain, "ID", "why: C1.. (claim), F1.. (flag), I1.. (issue) or rec"
            ),
            "report": _Command(self._report, "[--explain]", "the full report of the last check"),
            "entity": _Command(self._entity, "NAME-or-ID", "every &kb atom about an entity"),
            "rules": _Command(self._rules, "HEAD", "a rule's clauses with file:line, overrides"),
            "reload": _Command(self._reload, "", "re-read the rule files after an edit"),
            "config": _Command(self._config, "[KEY]", "configuration values"),
            "spaces": _Command(self._spaces, "", "atom counts of the spaces"),
            "quit": _Command(lambda _: False, "", "leave (end of input does too)"),
        }

    @property
    def host(self) -> MettaHost:
        """The current engine's host (`:load` of a case with another KB rebuilds both)."""
        return self.engine.host

    def _register_trace(self) -> None:
        """Make `&trace` a token of the runner, so `!` expressions and `?` queries can use it."""
        if self.trace is not None:
            self.host.metta.register_atom("&trace", G(self.trace))

    def spaces(self) -> dict[str, GroundingSpaceRef]:
        """The spaces `?` can query and `:spaces` counts; &self is the runner's (the rules)."""
        found = {**self.host.spaces, "&self": self.host.metta.space()}
        if self.trace is not None:
            found["&trace"] = self.trace
        return found

    # ------------------------------------------------------------------ input lines

    def handle(self, line: str) -> bool:
        """Apply one line; False when the session should end. Errors are raised to the caller."""
        # hyperon 0.2.6 aborts the process on a NUL or a lone surrogate anywhere in its input.
        line = safe_text(line).strip()
        if not line or line.startswith(";"):
            return True
        if line.startswith("!"):
            self._evaluate(line[1:])
        elif line.startswith("?"):
            self._query(line[1:])
        elif line.startswith(":"):
            name, _, rest = line[1:].partition(" ")
            command = self.commands.get(name)
            if command is None:
                raise InputError(f"unknown command :{name} (:help lists them)")
            rest = rest.strip()
            if rest and not command.usage:
                raise InputError(f":{name} takes no argument")
            if not rest and command.usage and not command.usage.startswith("["):
                raise InputError(f"usage: :{name} {command.usage}")
            return command.run(rest) is not False
        else:
            raise InputError("expected !EXPR, ?PATTERN [&space] or a :command (:help)")
        return True

    def _parse(self, text: str, what: str) -> Atom:
        """The one expression of `what`, its nesting checked before hyperon's parser sees it."""
        split_forms(text, "input", program=True)
        atoms = self.host.metta.parse_all(text)
        if len(atoms) != 1:
            raise InputError(
                f"'{what}' takes one {'expression' if what == '!' else 'pattern'}, got {len(atoms)}"
            )
        return atoms[0]

    def _evaluate(self, text: str) -> None:
        # Evaluated as an atom, under the rules' step budget, never re-read from text.
        results = self.host.interpret(self._parse(text, "!"))
        errors = [r for r in results if _is_error(r)]
        if errors:
            raise InputError(str(errors[0]))
        print("[" + ", ".join(str(r) for r in results) + "]")

    def _query(self, text: str) -> None:
        found = re.fullmatch(r"(.*?)\s+(&\S+)", text.strip(), re.S)
        pattern_text, name = (found.group(1), found.group(2)) if found else (text, "&kb")
        spaces = self.spaces()
        if name not in spaces:
            raise InputError(f"no space {name} (there are {', '.join(spaces)})")
        pattern = self._parse(pattern_text, "?")
        names = _variables(pattern)
        with self.host.lock:
            matches = list(spaces[name].query(pattern))
        if not matches:
            print("no match")
        for bindings in matches:
            shown = [f"${n} = {bindings[n]}" for n in names if bindings.get(n) is not None]
            print(", ".join(shown) if shown else "yes")

    # ------------------------------------------------------------------ commands

    def _help(self, _: str) -> None:
        print("!EXPR               evaluate MeTTa, e.g. !(match &kb (attr E42 $p $v) ($p $v))")
        print("?PATTERN [&space]   query a space (default &kb), e.g. ?(name $e $n)")
        for name, command in self.commands.items():
            print(f":{name} {command.usage}".ljust(20), command.help)

    def _load(self, path: str) -> None:
        print(self.open_case(load_case(path), path))

    def open_case(self, case: Case, path: str) -> str:
        """Make `case` current, rebuilding the engine if its KB is not the engine's; returns a
        one-line note of what was loaded."""
        kb = complete_schema(case_kb(case))
        rebuilt = kb != self.engine.kb
        if rebuilt:
            self.engine = Engine(kb, rules_dir=self.rules_dir)
            self._register_trace()
        self._use_case(case)
        return (
            f"loaded {path}: {len(case.dialogue.turns)} turns; KB of {len(kb.entities)} entities"
            + (" (engine rebuilt)" if rebuilt else "")
        )

    def _use_case(self, case: Case) -> None:
        """Make `case` current: `:check` checks its reply, and the session starts from its
        dialogue, so `:turn` and `:check REPLY` continue the case's conversation."""
        self.case, self.result, self.query = case, None, case.query
        self.session = self.engine.session(case.session_id)
        for turn in case.dialogue.turns:
            self.session.add_turn(
                turn.speaker,
                turn.text,
                id=turn.id,
                timestamp=turn.timestamp or case.reference_time,
                act=turn.act,
            )

    def _turn(self, rest: str) -> None:
        speaker, _, text = rest.partition(" ")
        if not text.strip():
            raise InputError("usage: :turn SPEAKER TEXT")
        turn = self.session.add_turn(
            speaker, text.strip(), timestamp=self.case.reference_time if self.case else None
        )
        self.query = None
        print(f"{turn.id} {turn.speaker}: {turn.text}")

    def _check(self, reply: str) -> None:
        if reply:
            self.result = self.session.check(
                reply,
                self.query,
                reference_time=self.case.reference_time if self.case else None,
            )
        elif self.case is not None:
            self.result = self.engine.check_case(self.case)
        else:
            raise InputError("no case loaded: :load CASE first, or give a reply (:check REPLY)")
        self._summary(self.result)

    def _summary(self, result: PostprocessedResponse) -> None:
        rec = result.recommendation
        stats = result.factual_validation.stats
        kinds = Counter(f.hallucination_type.value for f in result.hallucination_flags)
        print(f"recommendation: {rec.kind.value}  (confidence {result.confidence:.2f})")
        if rec.reason:
            print(f"reason: {rec.reason}")
        print(
            f"claims: {stats.claims_checked}  ({stats.claims_verified} verified, "
            f"{stats.claims_contradicted} contradicted, {stats.claims_unverifiable} "
            f"unverifiable, {stats.claims_history_conflict} history conflicts)"
        )
        by_kind = ", ".join(f"{kind} {n}" for kind, n in kinds.most_common())
        print(f"flags: {sum(kinds.values())}" + (f"  ({by_kind})" if by_kind else ""))
        print(f"coherence: {result.coherence.score:.2f}  (issues: {len(result.coherence.issues)})")

    def _last(self) -> PostprocessedResponse:
        if self.result is None:
            raise InputError("nothing checked yet: run :check first")
        return self.result

    def _claims(self, _: str) -> None:
        result = self._last()
        validations = {v.claim_id: v for v in result.factual_validation.claim_validations}
        for claim in result.factual_validation.claims:
            v = validations.get(claim.id)
            who = f"{claim.subject} ({claim.subject_id})" if claim.subject_id else claim.subject
            neg = "not " if claim.negated else ""
            kb = f"  KB {v.kb_evidence.value!r}" if v and v.kb_evidence else ""
            status = v.status.kind if v else "unchecked"
            print(f"{claim.id} {who} · {claim.predicate} = {neg}{claim.object!r}  {status}{kb}")
        if not result.factual_validation.claims:
            print("no claims")

    def _flags(self, _: str) -> None:
        flags = self._last().hallucination_flags
        for i, f in enumerate(flags, start=1):
            print(
                f"F{i} {f.hallucination_type.value} {f.confidence:.2f} "
                f"@{f.span.start}-{f.span.end} {f.content!r}: {f.reason}"
            )
        if not flags:
            print("no flags")

    def _issues(self, _: str) -> None:
        issues = self._last().coherence.issues
        for i, issue in enumerate(issues, start=1):
            where = f" @{issue.span.start}-{issue.span.end}" if issue.span else ""
            print(f"I{i} {issue.issue_type.value} {issue.severity:.2f}{where}: {issue.description}")
        if not issues:
            print("no issues")

    def _explain(self, ident: str) -> None:
        """The verdict's rule call and result, the text of each clause that matched, the atoms
        the evidence came from, and the same for each verdict it rests on."""
        result = self._last()
        title, explanation = _verdict(result, ident)
        if explanation is None:
            raise InputError(f"{ident}: no explanation was recorded for this verdict")
        print(title)
        forms = {(f.file, f.line): f for f in self.host.forms}
        for line in _explanation_lines(explanation, forms, "  "):
            print(line)

    def _report(self, option: str) -> None:
        if option not in ("", "--explain"):
            raise InputError("usage: :report [--explain]")
        print(render_report(self._last(), colour=sys.stdout.isatty(), explain=bool(option)))

    def _entity(self, name: str) -> None:
        kb = self.host.kb
        # list(): an empty hyperon BindingsSet is truthy
        ids = [name] if list(kb.query(E(S("entity"), sym(name), V("t")))) else []
        if not ids:
            ids = _entities_named(kb, name)
        if not ids:
            raise InputError(f"no entity with id or name {name!r} in &kb")
        for eid in ids:
            for atom in _atoms_about(kb, eid):
                print(atom)

    def _rules(self, head: str) -> None:
        forms = [f for f in self.host.forms if f.head == head or _declares(f, head)]
        if not forms:
            heads = sorted({f.head for f in self.host.forms if f.head})
            close = difflib.get_close_matches(head, heads, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise InputError(f"no rule, fact or type named {head}{hint}")
        for form in forms:
            print(f"{form.file}:{form.line}")
            for text in form.text.splitlines():
                print(f"  {text}")
        for gone in self.host.replaced:
            if gone.head == head:
                print(f"replaced: {gone.file}:{gone.line} (by a later rule file)")

    def _reload(self, _: str) -> None:
        self.engine.reload_rules()
        # A session refuses to run after a reload (its readings used the old word lists), so the
        # dialogue is read again under the new rules.
        turns = self.session.turns
        self.session = self.engine.session(self.session.session_id)
        for turn in turns:
            self.session.add_turn(
                turn.speaker, turn.text, id=turn.id, timestamp=turn.timestamp, act=turn.act
            )
        self.result = None
        files = {f.file for f in self.host.forms}
        print(
            f"reloaded: {len(self.host.forms)} rules and facts from {len(files)} files; "
            f"{len(self.host.replaced)} shipped definitions overridden; "
            f"new session of {len(turns)} turns"
        )

    def _config(self, key: str) -> None:
        keys = self.engine.config_keys()
        if key and key not in keys:
            close = difflib.get_close_matches(key, keys, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise InputError(f"no setting {key}{hint}")
        for k in [key] if key else keys:
            print(f"{k} = {self.engine.setting(k)}")

    def _spaces(self, _: str) -> None:
        for name, space in self.spaces().items():
            print(f"{name:<10} {len(space.get_atoms())} atoms")

    # ------------------------------------------------------------------ completion

    def completions(self, buffer: str, text: str) -> list[str]:
        """Tab completions of `text` at the end of `buffer`: command names, then rule heads for
        `:rules`, setting names for `:config` and verdict ids for `:explain`."""
        if buffer.startswith(":") and " " not in buffer:
            # readline (as Python sets it up) appends nothing, so a command that takes an
            # argument completes with its space
            return [
                f":{name} " if command.usage else f":{name}"
                for name, command in self.commands.items()
                if f":{name}".startswith(text)
            ]
        command = buffer.split(" ", 1)[0]
        if command == ":rules":
            options = sorted({f.head for f in self.host.forms if f.head})
        elif command == ":config":
            options = self.engine.config_keys()
        elif command == ":explain" and self.result is not None:
            options = [c.id for c in self.result.factual_validation.claims]
            options += [f"F{i + 1}" for i in range(len(self.result.hallucination_flags))]
            options += [f"I{i + 1}" for i in range(len(self.result.coherence.issues))]
            options.append("rec")
        else:
            return []
        return [o for o in options if o.startswith(text)]


# ---------------------------------------------------------------------- helpers


def _is_error(atom: Atom) -> bool:
    return (
        isinstance(atom, ExpressionAtom)
        and bool(atom.get_children())
        and str(atom.get_children()[0]) == "Error"
    )


def _variables(atom: Atom) -> list[str]:
    """Variable names of a pattern in the order they are written, for printing bindings."""
    if isinstance(atom, VariableAtom):
        return [str(atom).lstrip("$")]
    found: list[str] = []
    if isinstance(atom, ExpressionAtom):
        for child in atom.get_children():
            found += [n for n in _variables(child) if n not in found]
    return found


def _verdict(result: PostprocessedResponse, ident: str) -> tuple[str, Explanation | None]:
    """A one-line title and the explanation of the verdict named C1.., F1.., I1.. or rec
    (flags and issues are numbered in result order, as in &reply)."""
    if ident.lower() == "rec":
        rec = result.recommendation
        return (
            f"rec: {rec.kind.value} (confidence {result.confidence:.2f})",
            rec.explanation,
        )
    claims = {c.id: c for c in result.factual_validation.claims}
    for v in result.factual_validation.claim_validations:
        if v.claim_id.lower() == ident.lower():
            c = claims[v.claim_id]
            return f"{c.id}: {c.subject} · {c.predicate} = {c.object!r}: {v.status.kind}", (
                v.explanation
            )
    found = re.fullmatch(r"([FfIi])(\d+)", ident)
    if found:
        index = int(found.group(2)) - 1
        if found.group(1) in "Ff" and 0 <= index < len(result.hallucination_flags):
            f = result.hallucination_flags[index]
            return (
                f"F{index + 1}: {f.hallucination_type.value} {f.confidence:.2f} {f.content!r}",
                f.explanation,
            )
        if found.group(1) in "Ii" and 0 <= index < len(result.coherence.issues):
            issue = result.coherence.issues[index]
            return (
                f"I{index + 1}: {issue.issue_type.value} {issue.severity:.2f}",
                issue.explanation,
            )
    raise InputError(f"no verdict {ident} in the last check (see :claims, :flags, :issues)")


def _explanation_lines(
    e: Explanation, forms: dict[tuple[str, int], RuleForm], indent: str
) -> Iterator[str]:
    yield f"{indent}rule:   {e.rule}"
    yield f"{indent}result: {e.result}"
    for where in e.clauses:
        yield f"{indent}clause {where}"
        file, _, line = where.rpartition(":")
        form = forms.get((file, int(line))) if line.isdigit() else None
        for text in form.text.splitlines() if form else ():
            yield f"{indent}  {text}"
    if e.atoms:
        yield f"{indent}atoms:"
        for atom in e.atoms:
            yield f"{indent}  {atom}"
    for reason in e.because:
        yield f"{indent}because:"
        yield from _explanation_lines(reason, forms, indent + "  ")


def _entities_named(kb: GroundingSpaceRef, name: str) -> list[str]:
    """Ids whose name or alias is `name`: exactly, else ignoring case."""
    ids: list[str] = []
    for head in ("name", "alias"):
        for bindings in kb.query(E(S(head), V("e"), to_atom(name))):
            ids.append(str(bindings["e"]))
    if not ids:
        wanted = name.casefold()
        for head in ("name", "alias"):
            for bindings in kb.query(E(S(head), V("e"), V("n"))):
                if str(from_atom(bindings["n"])).casefold() == wanted:
                    ids.append(str(bindings["e"]))
    return list(dict.fromkeys(ids))


def _atoms_about(kb: GroundingSpaceRef, eid: str) -> list[str]:
    """Every &kb atom with the entity's id as one of its arguments, in a stable order."""
    found: dict[str, None] = {}
    for arity in _ENTITY_ARITIES:
        for position in range(1, arity):
            slots = [V(f"a{i}") for i in range(arity)]
            slots[position] = sym(eid)
            pattern = E(*slots)
            for bindings in kb.query(pattern):
                atom = E(
                    *(slot if i == position else bindings[f"a{i}"] for i, slot in enumerate(slots))
                )
                found[str(atom)] = None
    return list(found)


def _declares(form: RuleForm, head: str) -> bool:
    """Whether the form is a type declaration `(: head TYPE)`."""
    children = form.atom.get_children() if isinstance(form.atom, ExpressionAtom) else []
    return len(children) == 3 and str(children[0]) == ":" and str(children[1]) == head


def _open_trace(path: str, engine: Engine) -> GroundingSpaceRef:
    from replyguard.trace_cli import open_trace

    store = open_trace(path)
    space = GroundingSpaceRef()
    store.load_into_space(space, metta=engine.host.metta)
    return space


def _line_editing(repl: Repl) -> Callable[[], None] | None:
    """Turn on readline editing, history and completion; returns the history saver to call on
    exit, or None where readline is unavailable."""
    try:
        import readline
    except ImportError:
        return None
    history = Path(os.environ.get(HISTORY_ENV) or Path.home() / ".replyguard_history")
    with suppress(OSError):
        readline.read_history_file(history)
    readline.set_history_length(HISTORY_LENGTH)
    readline.set_completer_delims(" \t")

    def complete(text: str, state: int) -> str | None:
        options = repl.completions(readline.get_line_buffer(), text)
        return options[state] if state < len(options) else None

    readline.set_completer(complete)
    # macOS's Python may be built on libedit, which spells the binding differently.
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")

    def save() -> None:
        try:
            readline.write_history_file(history)
        except OSError as exc:
            print(f"replyguard: cannot write history {history} ({exc.strerror})", file=sys.stderr)

    return save


def _lines(interactive: bool) -> Iterator[str]:
    """Input lines: prompted (Ctrl-C drops the line being typed) or read from a pipe (bytes
    that are not UTF-8 become U+FFFD, so a bad byte fails one line, not the session)."""
    if not interactive:
        yield from (raw.decode("utf-8", "replace").rstrip("\r\n") for raw in sys.stdin.buffer)
        return
    while True:
        try:
            yield input(PROMPT)
        except EOFError:
            print()
            return
        except KeyboardInterrupt:
            print()


# ---------------------------------------------------------------------- CLI


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "repl", help="a prompt over the MeTTa spaces: evaluate, load, check, explain, reload"
    )
    p.add_argument("--kb", help="the knowledge base (optional when --case brings one)")
    p.add_argument("--case", help="a case file to load at start (as :load CASE)")
    p.add_argument("--rules", metavar="DIR", help="user rules directory (:reload re-reads it)")
    p.add_argument("--trace", metavar="FILE", help="a trace file, loaded as atoms into &trace")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.kb is None and args.case is None:
        raise InputError("give --kb KB, or --case CASE (its KB is used)")
    case = load_case(args.case) if args.case else None
    engine = Engine(args.kb or case_kb(case), rules_dir=args.rules)
    trace = _open_trace(args.trace, engine) if args.trace else None
    repl = Repl(engine, rules_dir=args.rules, trace=trace)
    loaded = repl.open_case(case, args.case) if case is not None else None
    interactive = sys.stdin.isatty()
    save_history = _line_editing(repl) if interactive else None
    if interactive:  # a piped session prints only what its lines ask for
        print(
            f"replyguard repl: {len(repl.engine.kb.entities)} entities, "
            f"{len(repl.host.forms)} rules and facts. :help lists commands, :quit leaves."
        )
        if loaded:
            print(loaded)
    failed = False
    try:
        for number, line in enumerate(_lines(interactive), start=1):
            try:
                if not repl.handle(line):
                    break
            except KeyboardInterrupt:
                if not interactive:
                    raise
                print("interrupted")
            except Exception as exc:  # a REPL reports every failure and goes on
                failed = True
                where = "" if interactive else f"line {number}: "
                print(f"error: {where}{_describe(exc)}")
                if os.environ.get("REPLYGUARD_DEBUG"):
                    traceback.print_exc()
            sys.stdout.flush()
    finally:
        if save_history is not None:
            save_history()
    return 1 if failed else 0


def _describe(exc: Exception) -> str:
    """One line: our errors and hyperon's parse errors as they are, others with their type."""
    text = " ".join(str(exc).split())
    if isinstance(exc, ReplyguardError | SyntaxError) and text:
        return text
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__
