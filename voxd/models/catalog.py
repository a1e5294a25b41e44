"""Models `voxd models pull` knows by name: where each lives on the Hugging Face hub (its usual
public home) and where it goes under $VOXD_HOME/models."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnownModel:
    name: str
    role: str  # "stt" | "tts" | "llm"
    repo: str
    files: tuple[str, ...]  # paths in the repository; empty: every file
    folder: str  # under $VOXD_HOME/models
    setting: str  # the variable that selects it
    note: str


def whisper(size: str) -> KnownModel:
    return KnownModel(f"whisper-{size}", "stt", f"Systran/faster-whisper-{size}", (), f"whisper/{size}",
                      "VOXD_STT_MODEL", f"faster-whisper {size} (CTranslate2)")


def piper(locale: str, voice: str, quality: str) -> KnownModel:
    language = locale.split("_")[0]
    stem = f"{locale}-{voice}-{quality}"
    base = f"{language}/{locale}/{voice}/{quality}/{stem}.onnx"
    return KnownModel(f"piper-{stem}", "tts", "rhasspy/piper-voices", (base, base + ".json"), "piper",
                      "VOXD_TTS_VOICE", f"piper voice {stem}")


KNOWN: dict[str, KnownModel] = {
    model.name: model
    for model in (
        whisper("tiny.en"), whisper("base.en"), whisper("small.en"), whisper("tiny"), whisper("base"), whisper("small"),
        piper("en_US", "lessac", "medium"), piper("en_US", "amy", "medium"), piper("en_GB", "alba", "medium"),
        piper("de_DE", "thorsten", "medium"),
        KnownModel("qwen2.5-0.5b-instruct", "llm", "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
                   ("qwen2.5-0.5b-instruct-q4_k_m.gguf",), "llm", "VOXD_LLM_MODEL",
                   "Qwen2.5 0.5B Instruct, Q4_K_M GGUF: a small instruction-tuned model for the llamacpp backend"),
        KnownModel("qwen2.5-1.5b-instruct", "llm", "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
                   ("qwen2.5-1.5b-instruct-q4_k_m.gguf",), "llm", "VOXD_LLM_MODEL",
                   "Qwen2.5 1.5B Instruct, Q4_K_M GGUF: better routing, ~1 GB"),
    )
}
