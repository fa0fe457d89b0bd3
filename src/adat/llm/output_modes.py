"""Which form of structured output an OpenAI-compatible endpoint accepts, found out once per model.

Servers differ: OpenAI and vLLM take ``response_format: {type: json_schema, ...}``;
llama-cpp-python's server answers that with HTTP 500 and takes ``{type: json_object, schema: ...}``
(grammar-constrained); others take only ``{type: json_object}`` or no ``response_format`` at all.
:func:`probe_output_mode` asks the endpoint a one-field question in each form, strongest first
(:data:`MODES`), and keeps the first form that is answered (HTTP 200) with the asked-for object; when
every answered form came back without it, the strongest answered form is kept. The answer is
stored per (endpoint, model) in ``<data_dir>/_llm/output_modes.json`` so preflight probes once;
:func:`cached_mode` reads it for the client. A fixed ``llm.output_mode`` skips the probe.

Whatever the mode, answers are parsed tolerantly and validated against the role's schema
(:func:`adat.llm.output_schema.parse_output`); the modes without server-side schema decoding
carry the schema in a system message (:func:`structured_fields`).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adat.config import RunConfig
from adat.errors import UserError
from adat.llm.output_schema import OutputInvalid, extract_json

#: strongest first: server-side schema decoding, then JSON-only decoding, then the prompt alone
MODES = ("json_schema", "json_object_schema", "json_object", "prompt")
DEFAULT_MODE = "json_schema"

PROBE_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                                "additionalProperties": False}
PROBE_NAME = "adat_output_probe"
_LOCK = threading.Lock()


def structured_fields(mode: str, messages: list[dict[str, Any]], name: str, schema: dict[str, Any],
                      strict: bool) -> dict[str, Any]:
    """The ``messages`` and ``response_format`` body fields of a request for ``schema`` in ``mode``.

    Every mode but ``json_schema`` also asks for the schema in words, folded into the first system
    message (or a new one first): some chat templates accept a system message only at the start.
    The ``prompt`` mode sends no ``response_format``.
    """
    if mode == "json_schema":
        json_schema = {"name": name, "schema": schema, "strict": strict}
        return {"messages": messages, "response_format": {"type": "json_schema", "json_schema": json_schema}}
    text = ("Reply with only one JSON object, no prose and no code fences, that matches this JSON schema:\n"
            + json.dumps(schema, separators=(",", ":")))
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        messages = [{**messages[0], "content": f"{messages[0]['content']}\n\n{text}"}, *messages[1:]]
    else:
        messages = [{"role": "system", "content": text}, *messages]
    formats = {"json_object_schema": {"type": "json_object", "schema": schema},
               "json_object": {"type": "json_object"}}
    return {"messages": messages, **({"response_format": formats[mode]} if mode in formats else {})}


def store_path(cfg: RunConfig) -> Path:
    """The per-data-dir record of probed modes."""
    return cfg.data_path() / "_llm" / "output_modes.json"


def _key(base_url: str | None, model: str) -> str:
    return f"{base_url or 'api.openai.com'}|{model}"


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached_mode(cfg: RunConfig, model: str) -> str | None:
    """The mode recorded for ``model`` at ``llm.base_url`` (a fixed ``llm.output_mode`` wins)."""
    if cfg.llm.output_mode != "auto":
        return cfg.llm.output_mode
    entry = _load(store_path(cfg)).get(_key(cfg.llm.base_url, model))
    mode = entry.get("mode") if isinstance(entry, dict) else None
    return mode if mode in MODES else None


@dataclass
class ProbeResult:
    """The mode chosen and what each tried form got (``ok``, ``invalid: ...`` or ``HTTP 500: ...``)."""

    mode: str
    tried: dict[str, str] = field(default_factory=dict)
    cached: bool = False

    def line(self) -> str:
        how = "cached" if self.cached else "probed"
        rejected = [f"{m}: {why}" for m, why in self.tried.items() if why != "ok"]
        return f"{self.mode} ({how}{'; ' + '; '.join(rejected) if rejected else ''})"


def resolve_mode(cfg: RunConfig, model: str, api_key: str, timeout_s: float, *, force: bool = False) -> ProbeResult:
    """The mode for ``model``: fixed by config, else cached, else probed now and stored."""
    mode = None if force and cfg.llm.output_mode == "auto" else cached_mode(cfg, model)
    if mode is not None:
        return ProbeResult(mode, {}, cached=True)
    result = probe_output_mode(cfg.llm.base_url, api_key, model, timeout_s)
    path = store_path(cfg)
    with _LOCK:
        data = _load(path)
        data[_key(cfg.llm.base_url, model)] = {"mode": result.mode, "tried": result.tried,
                                               "probed_at": datetime.now(UTC).isoformat()}
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    return result


def probe_output_mode(base_url: str | None, api_key: str, model: str, timeout_s: float) -> ProbeResult:
    """Ask the endpoint the probe question in each of :data:`MODES`; see the module docstring."""
    from adat.llm.providers.endpoint_check import post_chat

    tried: dict[str, str] = {}
    answered: list[str] = []
    question = [{"role": "user", "content": 'Is the sky above Paris blue on a cloudless day? Answer as JSON: {"ok": true} '
                 'or {"ok": false}.'}]
    for mode in MODES:
        body = {"model": model, "temperature": 0, "max_tokens": 64,
                **structured_fields(mode, question, PROBE_NAME, PROBE_SCHEMA, True)}
        status, content, message = post_chat(base_url, api_key, body, timeout_s)
        if status != 200:  # one line: a server's validation error spans several
            tried[mode] = " ".join((f"HTTP {status}: {message}" if status else message).split())[:200]
            continue
        answered.append(mode)
        try:
            value = extract_json(content)
        except OutputInvalid as exc:
            tried[mode] = f"invalid: {exc}"[:200]
            continue
        if isinstance(value, dict) and isinstance(value.get("ok"), bool):
            tried[mode] = "ok"
            return ProbeResult(mode, tried)
        tried[mode] = "invalid: no boolean 'ok' in the answer"
    if answered:
        return ProbeResult(answered[0], tried)
    where = base_url or "api.openai.com"
    first = next(iter(tried.values()), "no answer")
    raise UserError(f"LLM endpoint {where} answered no structured-output request for model {model!r} ({first})",
                    field="llm.base_url", fix="check the server's log, or set llm.output_mode")
