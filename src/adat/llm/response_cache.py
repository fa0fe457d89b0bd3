"""On-disk LLM response cache: one JSON file per request under ``<root>/llm/<2 hex>/<sha256>.json``.

The key hashes everything that determines the answer (provider, model, endpoint, prompt id and
version, rendered messages, tools, schema, sampling parameters, an optional tag); the file
stores only the response and those identifying names, never an API key, header or base URL.
Files are written atomically (temp file + ``os.replace``) so concurrent workers and crashed runs
never leave a half-written entry; an unreadable entry counts as a miss.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adat.llm.types import LLMRequest, LLMResponse

log = logging.getLogger(__name__)

#: Bump when the key material or the file layout changes; old entries then simply miss.
CACHE_FORMAT = 1
#: the request fields that determine the answer
_KEYED = ("provider", "model", "prompt_id", "prompt_version", "messages", "tools", "response_schema",
          "schema_name", "schema_strict", "temperature", "max_tokens")


def cache_key(request: LLMRequest, *, endpoint: str = "", tag: str = "") -> str:
    """SHA-256 over the canonical JSON of everything that determines the response.

    ``request.variables`` is left out on purpose: the rendered messages already carry them.
    """
    material = {"format": CACHE_FORMAT, "endpoint": endpoint, "tag": tag,
                **{name: getattr(request, name) for name in _KEYED}}
    if request.output_mode != "json_schema":  # only then: keys made before modes existed stay valid
        material["output_mode"] = request.output_mode
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Read and write cached responses below ``root/llm``."""

    def __init__(self, root: Path) -> None:
        self.dir = Path(root) / "llm"

    def path_for(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> LLMResponse | None:
        path = self.path_for(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return LLMResponse.model_validate(data["response"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, ValidationError) as exc:
            # A damaged entry is a miss; the next good answer overwrites it.
            log.warning("ignoring unreadable LLM cache entry %s (%s)", path, type(exc).__name__)
            return None

    def put(self, key: str, request: LLMRequest, response: LLMResponse) -> None:
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        names = request.model_dump(include={"provider", "model", "prompt_id", "prompt_version"})
        entry: dict[str, Any] = {"key": key, **names, "created": datetime.now(UTC).isoformat(),
                                 "response": response.model_dump(mode="json")}
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
