"""Dataset adapters, perturbations and metrics for `replyguard eval`.

Adapters turn public datasets (KVRET, HaluEval dialogue, BEGIN) into `EvalCase`s — a `Case` plus
the truth that scores the engine's result — so the engine never sees dataset-specific code.
See docs/evaluation.md for what each adapter does and how every metric is defined.
"""
