"""Loading and linting TDAD specs and mutation packs.

``load_spec`` / ``load_mutation_pack`` turn a YAML file into the models of
:mod:`adat.contracts.tdad_spec` / :mod:`adat.tdad.pack_model`; any problem is ONE line naming the
file and the key path (``decision_tree[3].branches[0].next``) -- a :class:`UserError`.
``lint_spec`` finds what validates but cannot work: dangling branch targets (an undeclared
``END_*`` leaf is only a warning), unreachable nodes,
decisions ``respond`` does not accept, response fields missing from the contract, probes that
name tools the spec does not have.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from adat.contracts.tdad_spec import RESPOND_TOOL, Spec
from adat.errors import UserError
from adat.tdad.pack_model import JSON_KEY_SYNONYMS, JsonPredicate, MutationPack
from adat.yaml_io import read_yaml

#: node ids that start so are leaves (the TDAD shape's terminal nodes): an undeclared one still ends a path
LEAF_PREFIX = "END_"
M = TypeVar("M", bound=BaseModel)


def key_path(loc: Sequence[int | str]) -> str:
    """``('decision_tree', 3, 'branches', 0, 'next')`` -> ``decision_tree[3].branches[0].next``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _keys_at(model: type[BaseModel], loc: Sequence[int | str]) -> list[str]:
    """The keys accepted by the mapping that holds ``loc``'s last key (by alias where one is set)."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part) or next(
            (f for f in current.model_fields.values() if f.alias == part), None)
        if field is None:
            return []
        nested = [a for a in get_args(field.annotation) or (field.annotation,)
                  if isinstance(a, type) and issubclass(a, BaseModel)]
        nested += [b for a in get_args(field.annotation) for b in get_args(a)
                   if isinstance(b, type) and issubclass(b, BaseModel)]
        if not nested:
            return []
        current = nested[0]
    keys = [f.alias or name for name, f in current.model_fields.items()]
    if current is JsonPredicate:
        keys += list(JSON_KEY_SYNONYMS)
    return keys


def _validated(model: type[M], raw: dict[str, Any], file: str, shape: str) -> M:
    """``raw`` as ``model``; the first error as one line naming the key path (and how many more)."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()
    err = errors[0]
    loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
    kind = err["type"]
    if kind == "extra_forbidden":
        keys = _keys_at(model, loc)
        msg = "unknown key"
        fix = (f"use one of {', '.join(keys)} ({shape})" if keys
               else f"remove it or check its spelling against {shape}")
    elif kind == "missing":
        msg, fix = "required key is missing", "add it"
    else:
        shown = repr(err.get("input"))
        msg, fix = err["msg"], f"got {shown[:60] + '...' if len(shown) > 60 else shown}"
    more = len(errors) - 1
    if more:
        msg += f" (+{more} more error{'s' if more > 1 else ''})"
    raise UserError(msg, file=file, field=key_path(loc), fix=fix)


def _read_mapping(path: Path, what: str) -> dict[str, Any]:
    if not path.is_file():
        raise UserError("file not found", file=str(path), fix=f"pass the path of a {what} YAML file")
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise UserError("top level must be a mapping", file=str(path), fix=f"a {what} is a YAML mapping of keys")
    return raw


def parse_spec(raw: dict[str, Any], *, source: str = "<spec>") -> Spec:
    """Validate an already parsed spec mapping (``source`` names it in errors)."""
    return _validated(Spec, raw, source, "the TDAD spec shape")


def load_spec(path: str | Path) -> Spec:
    """Load a spec YAML file; any problem is a one-line :class:`UserError` with the key path."""
    p = Path(path)
    return parse_spec(_read_mapping(p, "TDAD spec"), source=str(p))


def load_mutation_pack(path: str | Path) -> MutationPack:
    """Load a mutation-pack YAML file; any problem is a one-line :class:`UserError` with the key path."""
    p = Path(path)
    return _validated(MutationPack, _read_mapping(p, "mutation pack"), str(p),
                      "the mutation-pack shape, docs/spec_suites.md 'Mutation packs'")


class LintFinding(BaseModel):
    """One defect of a spec (or of a pack against it)."""

    model_config = ConfigDict(extra="forbid")

    severity: Literal["error", "warning"]
    code: str
    path: str
    message: str

    def one_line(self) -> str:
        return f"{self.severity}: {self.path}: {self.message} [{self.code}]"


def _error(code: str, path: str, message: str) -> LintFinding:
    return LintFinding(severity="error", code=code, path=path, message=message)


def _warning(code: str, path: str, message: str) -> LintFinding:
    return LintFinding(severity="warning", code=code, path=path, message=message)


def lint_spec(spec: Spec, pack: MutationPack | None = None) -> list[LintFinding]:
    """Every defect found, in the order of the spec (and then of the pack)."""
    return [*_tree_findings(spec), *_contract_findings(spec), *(_pack_findings(spec, pack) if pack else [])]


def _tree_findings(spec: Spec) -> list[LintFinding]:
    out: list[LintFinding] = []
    ids = [n.node_id for n in spec.decision_tree]
    seen: set[str] = set()
    for i, node_id in enumerate(ids):
        if node_id in seen:
            out.append(_error("duplicate-node", f"decision_tree[{i}].node_id",
                              f"node id {node_id!r} is declared twice"))
        seen.add(node_id)
    tools = set(spec.tool_names())
    decisions = set(spec.decisions())
    for i, node in enumerate(spec.decision_tree):
        where = f"decision_tree[{i}]"
        out += [_undeclared_target(node.node_id, branch.next, ids, f"{where}.branches[{j}].next")
                for j, branch in enumerate(node.branches) if branch.next not in seen]
        out += [_error("unknown-tool", f"{where}.requirements.must_call_tools_in_order[{k}]",
                       f"{node.node_id} requires tool {tool!r}, which the spec does not define")
                for k, tool in enumerate(node.requirements.must_call_tools_in_order) if tool not in tools]
        out += [_error("decision-not-in-enum", f"{where}.requirements.{key}",
                       f"decision {decision!r} is not in the respond decision enum")
                for key, decision in node.requirements.missing_decisions().items() if decision not in decisions]
    reachable = {ids[0]}
    frontier = [spec.decision_tree[0]]
    while frontier:
        for branch in frontier.pop().branches:
            if branch.next not in reachable:
                reachable.add(branch.next)
                nxt = spec.node(branch.next)
                if nxt is not None:
                    frontier.append(nxt)
    return out + [_warning("unreachable-node", f"decision_tree[{i}]",
                           f"{node.node_id} is not reachable from {ids[0]}")
                  for i, node in enumerate(spec.decision_tree) if node.node_id not in reachable]


def _undeclared_target(node_id: str, target: str, declared: list[str], path: str) -> LintFinding:
    """A branch to a node the tree does not declare.

    **Decision** (docs/spec_tests.md): a target named as a leaf (``END_*``, the TDAD shape's
    terminal nodes) ends a path -- TestSmith takes it as a leaf and the spec stays usable, so it is
    a warning. Any other undeclared target, or an ``END_*`` one that nearly spells a declared node
    (a typo), is a genuinely dangling branch: an error.
    """
    close = difflib.get_close_matches(target, declared, n=1, cutoff=0.85)
    if target.startswith(LEAF_PREFIX) and not close:
        return _warning("undeclared-leaf", path, f"{node_id} branches to {target!r}, a leaf the tree does not "
                                                 "declare; it ends the path (declare it to give it a description)")
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return _error("dangling-branch", path, f"{node_id} branches to {target!r}, which is not a node{hint}")


def _contract_findings(spec: Spec) -> list[LintFinding]:
    respond_index = next((i for i, t in enumerate(spec.tools) if t.name == RESPOND_TOOL), None)
    if respond_index is None:
        return [_error("no-respond-tool", "tools",
                       f"the spec has no {RESPOND_TOOL!r} tool to carry the response contract")]
    respond, contract = spec.tools[respond_index], spec.response_contract
    where = f"tools[{respond_index}].input_schema"
    enum, props = respond.decision_enum(), respond.input_properties()
    return [
        *(_error("decision-not-in-enum", f"response_contract.decision_enum[{k}]",
                 f"decision {decision!r} is not in the respond decision enum")
          for k, decision in enumerate(contract.decision_enum) if decision not in enum),
        *(_warning("decision-not-in-contract", f"{where}.properties.decision.enum",
                   f"respond accepts {decision!r}, which response_contract.decision_enum lacks")
          for decision in enum if contract.decision_enum and decision not in contract.decision_enum),
        *(_error("field-not-in-contract", f"{where}.properties.{name}",
                 f"respond field {name!r} is missing from the response contract")
          for name in props if name not in contract.fields()),
        *(_error("contract-field-not-in-respond", f"response_contract.required_json_fields[{k}]",
                 f"required field {name!r} is not a respond argument")
          for k, name in enumerate(contract.required_json_fields) if name not in props)]


def _pack_findings(spec: Spec, pack: MutationPack) -> list[LintFinding]:
    tools = set(spec.tool_names())
    traces = [(i, m.id, m.activation_probe.expect_violation.trace) for i, m in enumerate(pack.mutations)]
    return [_error("probe-unknown-tool", f"mutations[{i}].activation_probe.expect_violation.trace",
                   f"probe of {mutation_id} names tool {tool!r}, which the spec does not define")
            for i, mutation_id, trace in traces for tool in (trace.tools() if trace else []) if tool not in tools]
