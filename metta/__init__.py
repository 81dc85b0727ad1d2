"""The shipped MeTTa rule files (package data; see replyguard.rules)."""
