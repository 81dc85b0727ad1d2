"""replyguard: checks an LLM reply before a person reads it."""
