"""A scripted model for the llm-agent host: cancels a customer's pending order the way a compliant
LLM agent would, including two bad tool calls whose errors it reads back. Shared by the host
and serving tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from adat.config import LLMSettings, RunConfig
from adat.llm import LLMClient, LLMResponse, ProviderRegistry, ToolCall
from adat.llm.providers.fake import FakeOutput, FakeProvider
from adat_reference.llm_agent import LLMAgent
from adat_reference.retail import RetailDB, default_db_path

MODEL = "fake/agent"


@dataclass(frozen=True)
class CancelCase:
    """A user with a pending order in the shipped database."""

    user_id: str
    email: str
    order_id: str


def pending_order_case(db: RetailDB | None = None) -> CancelCase:
    db = db or RetailDB.load(default_db_path())
    order = min((o for o in db.orders.values() if o.status == "pending"), key=lambda o: o.order_id)
    return CancelCase(order.user_id, db.users[order.user_id].email, order.order_id)


def tool_call(call_id: str, name: str, arguments: dict[str, object] | str) -> LLMResponse:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return LLMResponse(tool_calls=[ToolCall(id=call_id, name=name, arguments=text)], finish_reason="tool_calls")


def cancel_script(case: CancelCase) -> Iterator[FakeOutput]:
    """Turn 1: look up, two bad calls, ask for confirmation. Turn 2: cancel, confirm in text."""
    yield tool_call("c1", "find_user_id_by_email", {"email": case.email})
    yield tool_call("c2", "get_order_details", {"order_id": case.order_id})
    yield tool_call("c3", "delete_all_orders", {"user_id": case.user_id})  # no such tool
    yield tool_call("c4", "cancel_pending_order", '{"order_id": "' + case.order_id + '", reason')  # bad JSON
    yield tool_call("c5", "get_order_details", {"id": case.order_id})  # wrong argument name
    yield f"Order {case.order_id} is pending. Shall I cancel it because it is no longer needed? (yes/no)"
    yield tool_call("c6", "cancel_pending_order", {"order_id": case.order_id, "reason": "no longer needed"})
    yield f"Done: order {case.order_id} is cancelled."


def make_client(tmp_path: Path, outputs: Iterator[FakeOutput] | list[FakeOutput] | Callable[..., FakeOutput],
                ) -> tuple[LLMClient, FakeProvider]:
    """An LLMClient whose fake/agent model plays ``outputs``; no cache, nothing outside tmp_path."""
    registry = ProviderRegistry()
    fake = registry.register_fake("agent", outputs)
    cfg = RunConfig(data_dir=str(tmp_path), llm=LLMSettings(cache=False))
    return LLMClient(cfg, "test-run", registry=registry, cache_dir=tmp_path / "cache"), fake


def make_agent(tmp_path: Path, outputs: Iterator[FakeOutput] | list[FakeOutput] | Callable[..., FakeOutput],
               **kwargs: object) -> tuple[LLMAgent, FakeProvider, LLMClient]:
    client, fake = make_client(tmp_path, outputs)
    return LLMAgent(client, model=MODEL, **kwargs), fake, client  # type: ignore[arg-type]
