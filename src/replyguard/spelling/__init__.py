"""Spelling and grammar correction, stage 4's first step (DESIGN §5.4; docs/spelling.md)."""

from replyguard.spelling.corrector import SpellingCorrector
from replyguard.spelling.edits import Rejection, TextEdit, apply_edits

__all__ = ["Rejection", "SpellingCorrector", "TextEdit", "apply_edits"]
