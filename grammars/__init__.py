"""The shipped Lark grammars (package data)."""
