"""Seeded faults: one policy flip per YAML file in ``catalogs/faults/retail/`` (format: docs/faults.md).

A fault overrides one rule of the reference agent (parameters, a forced outcome, sentences) and
rewrites one passage of the policy document (for LLM agents). Its activation probe is a scripted
conversation whose replies differ between the original and the faulty agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adat import config
from adat.errors import UserError
from adat.yaml_io import parsed_once, read_yaml
from adat_reference.agent.rules import Outcome, RuleBook, RuleOverride


def default_fault_dir() -> Path:
    """Where the retail fault files live."""
    return config.fault_dir()


class FaultProbe(BaseModel):
    """An activation probe: user messages sent in one session, and the difference to expect."""

    model_config = ConfigDict(extra="forbid")

    messages: list[str] = Field(min_length=1, description="user messages, sent in order after reset")
    expect: str = Field(description="how the faulty agent's replies (or end state) differ")


class Fault(BaseModel):
    """One seeded policy fault."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    description: str
    rule: str = Field(description="the rule id the fault flips")
    direction: Outcome = Field("allowed", description=(
        "which way the flip moves requests: 'allowed' lets through some the shipped rule denies, "
        "'denied' refuses some it allows"))
    override: RuleOverride
    passage_before: str = Field(description="the policy passage as shipped (verbatim)")
    passage_after: str = Field(description="the passage as the faulty agent's policy states it")
    probe: FaultProbe
    source: str = Field("", exclude=True, description="the file the fault was read from")


def _read(path: Path) -> Fault:
    """The fault in ``path`` (parsed once per content; a copy is handed out)."""
    return parsed_once(path, _parse).model_copy(deep=True)


def _parse(path: Path) -> Fault:
    doc: Any = read_yaml(path)
    try:
        fault = Fault.model_validate(doc)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(part) for part in err["loc"])
        raise UserError(err["msg"], file=str(path), field=loc or None,
                        fix="see docs/faults.md for the fault file format") from None
    if fault.id != path.stem:
        raise UserError(f"id {fault.id!r} differs from the file name", file=str(path), field="id",
                        fix=f"name the file {fault.id}.yaml or set id: {path.stem}")
    fault.source = str(path)
    return fault


def fault_ids(directory: Path | str | None = None) -> list[str]:
    """Ids of the fault files in ``directory`` (default: the shipped retail faults), sorted."""
    folder = Path(directory) if directory is not None else default_fault_dir()
    return sorted(p.stem for p in folder.glob("*.yaml"))


def list_faults(directory: Path | str | None = None) -> list[str]:
    """Ids of the faults in ``directory`` (same as :func:`fault_ids`); ``load_fault`` reads one."""
    return fault_ids(directory)


def load_fault(fault_id: str, directory: Path | str | None = None) -> Fault:
    """The fault ``fault_id``; an unknown id is a UserError listing the known ids."""
    folder = Path(directory) if directory is not None else default_fault_dir()
    path = folder / f"{fault_id}.yaml"
    if fault_id not in fault_ids(folder):  # never a path: '../x' names no fault, even if ../x.yaml exists
        known = fault_ids(folder)
        raise UserError(f"unknown fault {fault_id[:80]!r}", field="--fault / target.fault",
                        fix=f"use one of: {', '.join(known) or '(no fault files in ' + str(folder) + ')'}")
    return _read(path)


def rewords_rule(fault: Fault, book: RuleBook) -> bool:
    """Whether the fault changes what the agent *says* at its rule: it overrides one of the rule's
    sentences, or a parameter one of them quotes (``{statuses}``) — so it takes effect wherever the
    rule is evaluated and speaks, even where the decision stays the same."""
    if fault.override.sentences:
        return True
    sentences = book.rules[fault.rule].sentences.values() if fault.rule in book.rules else []
    return any("{" + name + "}" in text or "{" + name + "_quoted}" in text
               for name in fault.override.params for text in sentences)
