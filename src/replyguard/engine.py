"""The public entry point: build an Engine once per KB, then postprocess many replies.

engine = Engine("kb.json")                       # or a KnowledgeBase; rules_dir=, config=
result = engine.postprocess(response=..., query=..., dialogue=...)
result.recommendation.kind, result.model_dump_json()
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from lark import Lark
from pydantic import ValidationError

from replyguard.atoms import clear_space, load_kb_space
from replyguard.dialogue import DecayConfig, derive_context
from replyguard.errors import InputError, RuleError, describe_validation_error
from replyguard.kb import complete_schema, load_kb, on_table_day
from replyguard.metta_host import MettaHost, Sym
from replyguard.models import (
    Case,
    DialogueState,
    KnowledgeBase,
    PostprocessedResponse,
    Turn,
    text_problem,
)
from replyguard.pipeline import run_pipeline
from replyguard.rule_check import user_rule_problems
from replyguard.seed_api import SeedOperations
from replyguard.session import Session
from replyguard.spelling.corrector import SpellingCorrector
from replyguard.spelling.lexicon import english
from replyguard.spelling.rulebook import read_rulebook
from replyguard.stages.correction import STYLES
from replyguard.text.analysis import Reader
from replyguard.text.claims import claim_parser
from replyguard.text.lexicon import WORD_LIST_ARITY, KBIndex, WordLists, word_list_problems
from replyguard.text.organisation import qualifying_organisations
from replyguard.tool_knowledge import knowing

MAX_RESPONSE_CHARS = 100_000
MAX_PASSAGE_CHARS = 1_000_000  # all passages of one call together


class Engine:
    """Rules, KB and word lists loaded once; `postprocess` is then cheap and repeatable.

    One engine may be shared between threads: its calls take turns (the host's lock), since
    hyperon's spaces cannot be used from two threads at once. For parallel checking, give each
    thread or process its own engine."""

    def __init__(
        self,
        kb: KnowledgeBase | str | Path,
        *,
        rules_dir: str | Path | None = None,
        config: dict[str, object] | None = None,
        annotation_style: str = "plain",
    ) -> None:
        started = time.perf_counter()
        if annotation_style not in STYLES:
            raise InputError(f"annotation_style: expected one of {', '.join(STYLES)}")
        self.annotation_style = annotation_style
        seed = SeedOperations()
        self.host = MettaHost(
            rules_dir, overrides=_check_config(config), extra_operations=seed.operations()
        )
        self.kb = complete_schema(kb if isinstance(kb, KnowledgeBase) else load_kb(kb))
        self.kb_atoms = load_kb_space(self.host.kb, self.kb)
        self._read_rule_lists()
        self._build_readers()
        seed.bind(self)
        self.rules_version = 0
        # inside a check with tool results (tool_knowledge.knowing): every tool returned nothing
        self.lookup_found_nothing = False
        self.build_seconds = time.perf_counter() - started

    def _read_rule_lists(self) -> None:
        """What the rule files alone decide, read once per load of the rules: settings, word
        lists, the spelling rulebook and a user's claim grammar."""
        self._settings: dict[str, object] = {}
        for form, message in word_list_problems(self.host.forms):
            raise RuleError(f"{form.file}:{form.line}: {message}")
        for problem in user_rule_problems(self.host):
            raise RuleError(str(problem))
        self.words = WordLists.from_facts({h: self.host.facts(h) for h in WORD_LIST_ARITY})
        self._rulebook = read_rulebook([f.atom for f in self.host.forms])
        self._claim_grammar = self._user_claim_grammar()

    def _build_readers(self) -> None:
        """What reads text against the KB: its index, the spelling corrector, the reader."""
        vocabulary = english()
        emphasis = float(self.setting("emphasis-word-log-prior"))  # type: ignore[arg-type]
        self.index = KBIndex(
            self.kb,
            self.words,
            is_rare=lambda w: vocabulary.prior(w, 0.3) < emphasis,
            word_prior=lambda w: vocabulary.prior(w, 0.3) if w in vocabulary else None,
        )
        self.spelling = SpellingCorrector(kb_words(self.kb, self.index), rulebook=self._rulebook)
        # the Organization entities that may speak as "we"; "we" is one only when one qualifies
        self.organisations = qualifying_organisations(
            self.kb,
            [(str(k), str(w)) for k, w in self.host.facts("organisation-detail")],
            lambda contact, hours: self.host.value("speaks-for-us", contact, hours) is True,
        )
        self.reader = Reader(
            self.index,
            self.words,
            fuzzy_cutoff=float(self.setting("fuzzy-name-cutoff")),
            word_prior=lambda w: vocabulary.prior(w, 0.3),
            priors=(
                float(self.setting("emphasis-word-log-prior")),  # type: ignore[arg-type]
                float(self.setting("name-opener-log-prior")),  # type: ignore[arg-type]
                float(self.setting("gerund-verb-log-prior")),  # type: ignore[arg-type]
            ),
            code_name_holders=int(self.setting("code-name-holders")),  # type: ignore[arg-type]
            claim_grammar=self._claim_grammar,
            organisation=self.organisations[0] if len(self.organisations) == 1 else None,
            voice=frozenset(str(w) for (w,) in self.host.facts("organisation-voice")),
            organisations=tuple(self.organisations),
        )

    def _user_claim_grammar(self) -> Lark | None:
        """A `claims.lark` in the user rules directory replaces the shipped claim grammar."""
        rules_dir = self.host.rules_dir
        if rules_dir is None or not (rules_dir / "claims.lark").is_file():
            return None
        return claim_parser(str(rules_dir / "claims.lark"))

    def replace_kb(self, kb: KnowledgeBase | str | Path) -> None:
        """Check against another KB from now on, keeping the loaded rules and what they have
        already decided (an evaluation over many small KBs pays the rule loading once)."""
        new = complete_schema(kb if isinstance(kb, KnowledgeBase) else load_kb(kb))
        with self.host.lock:
            clear_space(self.host.kb)
            self.kb = new
            self.kb_atoms = load_kb_space(self.host.kb, new)
            self._build_readers()
            self.rules_version += 1  # sessions read against the old KB must not continue

    def reload_rules(self) -> None:
        """Re-read the rule files (after an edit); the KB and its space stay as they are."""
        with self.host.lock:
            self.host.load_rules()
            self._read_rule_lists()
            self._build_readers()
            self.rules_version += 1

    @property
    def decay(self) -> DecayConfig:
        """Salience and topic decay (DESIGN §3), from metta/config.metta."""
        return DecayConfig(
            salience_decay=float(self.setting("salience-decay")),  # type: ignore[arg-type]
            salience_focus=float(self.setting("salience-focus")),  # type: ignore[arg-type]
            topic_decay=float(self.setting("topic-decay")),  # type: ignore[arg-type]
            topic_floor=float(self.setting("topic-floor")),  # type: ignore[arg-type]
        )

    def config_keys(self) -> list[str]:
        return [
            str(f.lhs.get_children()[1])
            for f in self.host.forms  # type: ignore[union-attr]
            if f.head == "config" and f.lhs is not None
        ]

    def setting(self, key: str) -> object:
        """A configuration value from metta/config.metta (or its overrides), read once."""
        if key not in self._settings:
            self._settings[key] = self.host.value("config", Sym(key))
        return self._settings[key]

    # ------------------------------------------------------------------ checking

    def postprocess(
        self,
        response: str,
        query: str = "",
        dialogue: DialogueState | list[Turn] | None = None,
        *,
        reference_time: datetime | None = None,
        session_id: str | None = None,
        turn_id: str | None = None,
        annotation_style: str | None = None,
        passages: Sequence[str] = (),
        tool_results: Sequence[object] | None = None,
    ) -> PostprocessedResponse:
        """Check one reply. `passages` are texts the reply is meant to rest on (retrieved
        documents, a knowledge snippet): a sentence that says more than they do is flagged.
        `tool_results` are what the agent's tools returned (parsed JSON), checked as a KB
        merged over this one (replyguard.tool_knowledge)."""
        if tool_results is not None:
            with knowing(self, tool_results):
                return self.postprocess(
                    response,
                    query,
                    dialogue,
                    reference_time=reference_time,
                    session_id=session_id,
                    turn_id=turn_id,
                    annotation_style=annotation_style,
                    passages=passages,
                )
        self.validate_call(
            response, query, annotation_style, passages, (session_id, turn_id), reference_time
        )
        if dialogue is None:
            dialogue = DialogueState()
        elif isinstance(dialogue, list):
            try:
                dialogue = DialogueState(turns=dialogue)
            except ValidationError as exc:
                raise InputError(f"dialogue.{describe_validation_error(exc)}") from None
        elif not isinstance(dialogue, DialogueState):
            raise InputError(
                f"dialogue: expected a DialogueState or a list of turns, "
                f"got {type(dialogue).__name__}"
            )
        style = annotation_style or self.annotation_style
        reference = on_table_day(self.kb, reference_time or datetime.now())
        given = dialogue
        return run_pipeline(
            self,
            response,
            query,
            lambda: derive_context(given, query, self.reader, reference, self.decay),
            reference,
            session_id,
            turn_id,
            style,
            passages,
        )

    def session(self, session_id: str | None = None) -> Session:
        """A dialogue fed turn by turn, its state kept up to date (see replyguard.session)."""
        return Session(self, session_id)

    def validate_call(
        self,
        response: object,
        query: object,
        annotation_style: str | None,
        passages: object = (),
        ids: tuple[object, object] = (None, None),
        reference_time: object = None,
    ) -> None:
        """The checks every call makes on its arguments, as one-line InputErrors."""
        if reference_time is not None and not isinstance(reference_time, datetime):
            raise InputError(
                f"reference_time: expected a datetime, got {type(reference_time).__name__}"
            )
        _check_text("response", response, required=True)
        _check_text("query", query, required=False)
        for field, value in zip(("session_id", "turn_id"), ids, strict=True):
            if value is not None:
                _check_text(field, value, required=True)
        if isinstance(passages, str) or not isinstance(passages, Sequence):
            raise InputError(f"passages: expected a list of texts, got {type(passages).__name__}")
        for k, passage in enumerate(passages):
            _check_text(f"passages[{k}]", passage, required=False)
        total = sum(len(p) for p in passages)
        if total > MAX_PASSAGE_CHARS:
            raise InputError(
                f"passages: {total:,} characters in all is more than the limit of "
                f"{MAX_PASSAGE_CHARS:,}"
            )
        if annotation_style is not None and annotation_style not in STYLES:
            raise InputError(f"annotation_style: expected one of {', '.join(STYLES)}")

    def check_case(self, case: Case) -> PostprocessedResponse:
        return self.postprocess(
            case.response,
            case.query,
            case.dialogue,
            reference_time=case.reference_time,
            session_id=case.session_id,
            turn_id=case.turn_id,
            passages=case.passages,
            tool_results=case.tool_results or None,
        )


def kb_words(kb: KnowledgeBase, index: KBIndex) -> list[str]:
    """Everything the KB knows as words: names, aliases, textual values and cue phrases, so the
    spelling corrector never corrects a real name or value into a common word."""
    words: list[str] = []
    for entity in kb.entities:
        words.extend(entity.names)
        for attribute in entity.attributes:
            words.extend(str(v) for v in entity.values_of(attribute)[0] if isinstance(v, str))
    for spec in kb.attribute_schema.values():
        words.extend(spec.cues)
    words.extend(index.schema)
    return words


def _check_config(config: dict[str, object] | None) -> dict[str, object] | None:
    if config is None:
        return None
    if not isinstance(config, dict):
        raise InputError(
            f"config: expected a mapping of setting names to values, got {type(config).__name__}"
        )
    for key, value in config.items():
        if not isinstance(key, str) or not re.fullmatch(r"[a-z][a-z0-9-]*", key):
            raise InputError(f"config: {key!r} is not a setting name")
        if not isinstance(value, bool | int | float):
            raise InputError(f"config.{key}: expected a number or a boolean")
    return config


def _check_text(field: str, value: object, *, required: bool) -> None:
    if not isinstance(value, str):
        raise InputError(f"{field}: expected text, got {type(value).__name__}")
    if required and not value.strip():
        raise InputError(f"{field}: empty; there is nothing to check")
    if problem := text_problem(value):
        raise InputError(f"{field}: {problem}")
    if len(value) > MAX_RESPONSE_CHARS:
        raise InputError(
            f"{field}: {len(value):,} characters is more than the limit of {MAX_RESPONSE_CHARS:,}"
        )
