"""The language-model proxy (7704): OpenAI-compatible chat completions over Ollama, any
OpenAI-compatible server, or an embedded llama.cpp model. See docs/llm.md."""
