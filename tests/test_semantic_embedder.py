"""The semantic stage's sentence model on ONNX Runtime (pipeline/embedder.py): exported once from the
real all-MiniLM-L6-v2, it gives sentence-transformers' vectors, one sentence or a padded batch; when
the export fails the stage still embeds, on torch, and says why."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from voxd.services.command_center.pipeline import embedder as embedding

pytest.importorskip("onnxruntime")
pytest.importorskip("sentence_transformers")

SENTENCES = ["set a timer for ten minutes", "what's the weather like in Paris tomorrow afternoon", "hi", "",
             "add " + "eggs and butter and " * 150 + "flour to the list"]  # past the model's 256 tokens


@pytest.mark.slow
def test_the_exported_model_gives_the_vectors_sentence_transformers_gives(tmp_path):
    found = embedding.load_embedder(tmp_path)
    assert isinstance(found, embedding.OnnxEmbedder)
    assert (tmp_path / embedding.MODEL_NAME / embedding.EXPORTED).exists()
    torch_way = embedding.SentenceEmbedder(tmp_path / embedding.MODEL_NAME)
    together, expected = found.embed(SENTENCES), torch_way.embed(SENTENCES)
    assert together.shape == expected.shape == (len(SENTENCES), 384)
    assert np.abs(together - expected).max() < 1e-5
    alone = np.vstack([found.embed([sentence]) for sentence in SENTENCES])  # no padding
    assert np.abs(alone - expected).max() < 1e-5
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert isinstance(embedding.load_embedder(tmp_path), embedding.OnnxEmbedder)  # the export is kept


@pytest.mark.slow
def test_without_an_export_the_stage_embeds_on_torch_and_says_why(tmp_path, monkeypatch, caplog):
    def cannot(model_dir):
        raise ModuleNotFoundError("No module named 'onnx'")

    monkeypatch.setattr(embedding, "export", cannot)
    with caplog.at_level(logging.WARNING, logger="voxd.command-center.semantic"):
        found = embedding.load_embedder(tmp_path)
    assert isinstance(found, embedding.SentenceEmbedder)
    assert found.embed(["set a timer"]).shape == (1, 384)
    assert "runs on torch" in caplog.text and "onnx" in caplog.text
