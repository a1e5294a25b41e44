"""The voice pipeline's stages (pipeline.py) and what they use: the turn that flows through them,
the ports they depend on, the semantic stage, the two model calls, follow-ups, speech and the
household's vocabulary and time zone (docs/architecture.md, The voice pipeline)."""
