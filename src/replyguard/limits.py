"""What hyperon 0.2.6 can be handed without aborting or hanging the process, and the limits that
keep it so.

- Text. hyperon shows a Python-held value (a string) through a 4,096-byte buffer and panics when
  the cut lands inside a character; a NUL or a lone surrogate cannot cross into it at all. Text
  in atoms is made safe (`safe_text`) and its display is kept short and cut between characters
  (`display_text`): the value itself stays whole on the Python side, where hyperon compares it.
- Nesting. hyperon's parser recurses once per bracket and overflows the native stack (SIGSEGV)
  at some thousands; Python's walkers over atoms stop at a few hundred. Rule files and REPL input
  deeper than `MAX_NESTING` are refused before they reach the parser.
- Steps. A rule that never ends would run (and grow) forever; every rule call runs under a
  budget of `RULE_STEP_LIMIT` interpreter steps, plus `STEPS_PER_ATOM` for each atom of the call
  (a rule over a long list walks every item).
"""

from __future__ import annotations

import hashlib

# The deepest bracket nesting a rule file or a REPL line may hold (the shipped rules need 12).
MAX_NESTING = 200
# Interpreter steps one rule call may take: RULE_STEP_LIMIT + STEPS_PER_ATOM x the atoms in the
# call. The shipped rules take at most ~2,500 on a KVRET dialogue, and ~30 per item of a list
# (a 100,000-character reply with 1,852 claims: 168,000 steps for a call of ~5,600 atoms); an
# endless rule over small arguments stops after ~2 s and ~50 MB.
RULE_STEP_LIMIT = 200_000
STEPS_PER_ATOM = 200
# The longest display of one text value (bytes of UTF-8), well inside hyperon's 4,096.
DISPLAY_BYTES = 1_000
_QUOTE = str.maketrans({'"': r"\""})


def safe_text(text: str) -> str:
    """Text hyperon 0.2.6 can hold: a NUL (even escaped) or a lone surrogate aborts the process."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return text.encode("utf-8", "replace").decode("utf-8")


def quoted(text: str) -> str:
    """A string as hyperon writes it: double quotes, Python escapes."""
    return '"' + repr(text)[1:-1].translate(_QUOTE) + '"'


def display_text(text: str) -> str:
    """`quoted(text)`, or for a long text its start (cut between characters) with how much is
    left out and a digest of the whole, so two long texts never show alike."""
    shown = quoted(text)
    if len(shown) * 4 <= DISPLAY_BYTES or len(shown.encode("utf-8", "replace")) <= DISPLAY_BYTES:
        return shown
    budget = DISPLAY_BYTES - 64
    low, high = 0, min(len(text), budget)
    while low < high:  # the longest prefix whose display fits the budget
        mid = (low + high + 1) // 2
        if len(quoted(text[:mid]).encode("utf-8", "replace")) <= budget:
            low = mid
        else:
            high = mid - 1
    digest = hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=6).hexdigest()
    return f'{quoted(text[:low])[:-1]}… (+{len(text) - low:,} chars, #{digest})"'


def short(text: str, limit: int = 200) -> str:
    """One line of at most about `limit` characters (its start and its end), for messages that
    cross into hyperon or name a long call."""
    line = " ".join(safe_text(text).split())
    half = limit // 2
    return line if len(line) <= limit else f"{line[:half]} … {line[-half:]}"
