"""examples/otlp_agent: its run.yaml loads, and its instrumented agent's tool calls (a failed one
included) reach adat's turns through the receiver -- on a free port instead of the example's 4318."""

from __future__ import annotations

from pathlib import Path

from adat import config
from adat.targets.otlp_receiver import shared_receiver
from adat.targets.target_factory import build_target

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "otlp_agent" / "run.yaml"


def test_the_example_agents_spans_become_its_turns_tool_calls() -> None:
    cfg = config.load_run_config(EXAMPLE)
    target_cfg = cfg.target
    assert isinstance(target_cfg, config.PythonTarget) and target_cfg.otlp.enabled
    assert target_cfg.kwargs["endpoint"].endswith(f":{target_cfg.otlp.port}/v1/traces")  # the example agrees
    receiver = shared_receiver("127.0.0.1", 0, target_cfg.otlp.session_attribute)  # what port 0 will share
    free = target_cfg.model_copy(update={"otlp": target_cfg.otlp.model_copy(update={"port": 0}),
                                         "kwargs": {**target_cfg.kwargs, "endpoint": receiver.endpoint,
                                                    "export_delay_ms": 200}})
    target = build_target(free, cfg)
    session = target.reset()
    first = target.invoke(session, "Hi, I am grace.dubois9572@example.com; please cancel order #W2832706.")
    assert first.text.endswith("Please answer yes to confirm.")
    assert [(c.name, c.arguments, c.result, c.error, c.order) for c in first.tool_calls] == [
        ("find_user_id_by_email", {"email": "grace.dubois9572@example.com"}, "grace_dubois_8144", None, 0),
        ("get_order_details", {"order_id": "#W2832706"}, "pending", None, 1)]
    second = target.invoke(session, "yes")
    assert [(c.name, c.result) for c in second.tool_calls] == [("cancel_pending_order", "cancelled")]
    failed = target.invoke(session, "and order #W7114153, yes")
    assert [(c.name, c.error) for c in failed.tool_calls] == [
        ("get_order_details", None), ("cancel_pending_order", "ToolError: only a pending order can be cancelled")]
    assert failed.tool_calls[1].result is None  # the SDK writes the escaping exception as the status
