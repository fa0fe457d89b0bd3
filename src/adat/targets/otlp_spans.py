"""OTLP trace export requests as plain span values, and tool-call spans as :class:`AgentToolCall`.

Parsing is the official ``opentelemetry-proto`` messages' (protobuf, and protobuf's JSON mapping
for OTLP/JSON); this module only walks the parsed message. Tool calls follow the OpenTelemetry
GenAI semantic conventions for tool execution: a span with ``gen_ai.operation.name =
execute_tool`` names the tool in ``gen_ai.tool.name``, its arguments in
``gen_ai.tool.call.arguments`` and its result in ``gen_ai.tool.call.result`` (JSON text or a
structured value); a span status ``ERROR`` (or an ``error.type`` attribute) marks a failed call.
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from adat import redaction
from adat.records import AgentToolCall

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
#: the GenAI semantic conventions' names (opentelemetry semantic-conventions-genai, execute-tool.md)
OPERATION = "gen_ai.operation.name"
EXECUTE_TOOL = "execute_tool"
TOOL_NAME = "gen_ai.tool.name"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


class MalformedExport(ValueError):
    """A request body that is not an OTLP trace export of the declared content type."""


@dataclass(frozen=True)
class Span:
    """One received span: ids as lowercase hex, attributes as plain Python values."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    start_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None  # the status message (or error.type) of a span whose status is ERROR

    def tool_call(self, order: int) -> AgentToolCall | None:
        """The tool call this span records (GenAI conventions), or None when it is no tool execution."""
        attrs = self.attributes
        name = attrs.get(TOOL_NAME)
        if attrs.get(OPERATION) != EXECUTE_TOOL or not isinstance(name, str) or not name:
            return None
        arguments = _json_value(attrs.get(TOOL_ARGUMENTS))
        if not isinstance(arguments, dict):
            arguments = {} if arguments is None else {"_raw": arguments}
        result = None if self.error is not None else _json_value(attrs.get(TOOL_RESULT))
        error = None if self.error is None else redaction.scrub(self.error)
        return AgentToolCall.make(name, redaction.scrub_value(arguments), redaction.scrub_value(result),
                                  error=error, order=order)


def decode_export(body: bytes, media: str, content_encoding: str) -> list[Span]:
    """The spans of one ``POST /v1/traces`` body of ``media`` (:data:`PROTOBUF` or :data:`JSON`);
    raises :class:`MalformedExport` for a bad body."""
    body = _decompressed(body, content_encoding.strip().lower())
    request = ExportTraceServiceRequest()
    if media == JSON:
        try:
            doc = json.loads(body)
            json_format.ParseDict(_ids_as_base64(doc), request, ignore_unknown_fields=True)
        except (ValueError, json_format.ParseError, TypeError, AttributeError) as exc:
            raise MalformedExport(f"not an OTLP/JSON trace export: {' '.join(str(exc).split())[:200]}") from None
    else:
        try:
            request.ParseFromString(body)
        except (DecodeError, RuntimeWarning) as exc:
            raise MalformedExport(f"not an OTLP protobuf trace export: {exc}") from None
    return [Span(trace_id=s.trace_id.hex(), span_id=s.span_id.hex(), parent_span_id=s.parent_span_id.hex(),
                 name=s.name, start_ns=s.start_time_unix_nano,
                 attributes={kv.key: any_value(kv.value) for kv in s.attributes},
                 error=_error(s.status, s.attributes))
            for resource in request.resource_spans for scope in resource.scope_spans for s in scope.spans]


def tool_calls(spans: list[Span]) -> list[AgentToolCall]:
    """The tool-execution spans among ``spans`` as calls, in the order they started."""
    calls: list[AgentToolCall] = []
    for span in sorted(spans, key=lambda s: s.start_ns):  # stable: a tie keeps the order they arrived in
        call = span.tool_call(len(calls))
        if call is not None:
            calls.append(call)
    return calls


def any_value(value: AnyValue) -> Any:
    """An OTLP ``AnyValue`` as a Python value (arrays and key-value lists recursively)."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in value.kvlist_value.values}
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return None if kind is None else getattr(value, kind)


def _error(status: Status, attributes: Any) -> str | None:
    error_type = next((any_value(kv.value) for kv in attributes if kv.key == ERROR_TYPE), None)
    if status.code == Status.STATUS_CODE_ERROR:
        return status.message or (str(error_type) if error_type else "error")
    return str(error_type) if error_type not in (None, "") else None


def _json_value(value: Any) -> Any:
    """JSON text as its value (what the conventions recommend for arguments and results), else as is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _ids_as_base64(doc: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex; protobuf's JSON mapping reads bytes as base64."""
    if isinstance(doc, list):
        return [_ids_as_base64(item) for item in doc]
    if not isinstance(doc, dict):
        return doc
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key in _ID_FIELDS and isinstance(value, str):
            try:
                value = base64.b64encode(bytes.fromhex(value)).decode()
            except ValueError:
                raise MalformedExport(f"{key} {value[:40]!r} is not hex") from None
        out[key] = _ids_as_base64(value)
    return out


def _decompressed(body: bytes, encoding: str) -> bytes:
    if encoding in ("", "identity"):
        return body
    try:
        if encoding == "gzip":
            return gzip.decompress(body)
        if encoding == "deflate":
            return zlib.decompress(body)
    except (OSError, EOFError, zlib.error) as exc:
        raise MalformedExport(f"body is not valid {encoding}: {exc}") from None
    raise MalformedExport(f"unsupported Content-Encoding {encoding!r} (use gzip or none)")
