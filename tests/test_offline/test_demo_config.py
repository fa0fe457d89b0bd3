"""The demo run config: valid, offline for every role, and tester facts a QA tester would hold."""

from __future__ import annotations

from pathlib import Path

from adat.config import ROLES, load_run_config
from adat_offline.facts import parse_facts

DEMO = Path(__file__).resolve().parents[2] / "data" / "reference" / "demo.yaml"


def test_demo_config_validates_and_uses_offline_models() -> None:
    cfg = load_run_config(DEMO)
    assert cfg.target.type == "reference"
    assert {cfg.models.for_role(role) for role in ROLES} == {"offline/heuristic"}
    assert cfg.generation.n >= 40 and cfg.discovery.sessions >= 40


def test_demo_tester_facts_parse_into_accounts_with_orders_in_every_status() -> None:
    facts = parse_facts(load_run_config(DEMO).tester_facts)
    assert len(facts.accounts) >= 4
    for account in facts.accounts:
        assert account.email and account.first_name and account.zip and account.user_id and account.orders
    statuses = {order.status for _, order in facts.all_orders()}
    assert {"pending", "processed", "delivered", "cancelled", "return requested"} <= statuses
    assert any(account.gift_card_balances for account in facts.accounts)
