"""What ``adat config check`` checks beyond the schema, so it catches everything ``adat run`` does.

Offline checks only (no network, no API key, no target built), run right after a config is
loaded, before preflight and before any flow:

* references (:func:`check_config_references`): every model names a known provider
  (``provider/model``), the target's fault is a shipped fault id, and the files it names exist.
  ``adat run`` runs them again in :func:`adat.engine.preflight.preflight`, so the two never disagree.
* no silent stand-in (issue 25, :func:`check_roles_named`): every role defaults to
  ``offline/heuristic`` (:class:`adat.config.RoleModels`), right for the demo's offline world (the
  reference agent) and wrong for a user's agent: a config that forgets the judge would have its
  "real" run graded by the stand-in without a word. So with a target other than ``reference``
  every role the command uses must be set in the config — a real provider, or ``offline/heuristic``
  written out on purpose; pydantic's ``model_fields_set`` tells what the user wrote.
"""

from __future__ import annotations

from pathlib import Path

from adat.config import OFFLINE_MODEL, LLMAgentTarget, ReferenceTarget, RunConfig
from adat.errors import UserError
from adat.yaml_io import excerpt, read_user_text

#: Largest policy document an llm-agent target takes (it is the agent's system prompt).
POLICY_MAX_BYTES = 1024 * 1024


def check_config_references(cfg: RunConfig, *, file: str | None = None) -> None:
    """Raise a one-line :class:`UserError` naming ``file`` and the field of the first bad reference."""
    from adat.llm.providers.provider_registry import default_registry

    known = [p for p in default_registry().known() if p != "fake"]
    specs = [(f"models.{role}", spec) for role, spec in cfg.models.model_dump().items()]
    if isinstance(cfg.target, LLMAgentTarget):
        specs.append(("target.model", cfg.target.model))
    for field, spec in specs:
        provider, sep, model = str(spec).partition("/")
        if not sep or not provider or not model:
            raise UserError(f"model {excerpt(spec)} names no provider", file=file, field=field,
                            fix=f"write provider/model, e.g. openai/{excerpt(spec, 40).strip(chr(39))} or "
                                "offline/heuristic")
        if provider not in known and provider != "fake":
            raise UserError(f"unknown provider {excerpt(provider, 40)}", file=file, field=field,
                            fix=f"use one of {', '.join(known)}")
        if provider == "offline" and model != "heuristic":
            raise UserError(f"unknown offline model {excerpt(model, 40)}", file=file, field=field,
                            fix="use offline/heuristic")
    if isinstance(cfg.target, ReferenceTarget | LLMAgentTarget):
        _check_fault(cfg.target.type, cfg.target.fault, file)
        _check_file(cfg.target.database, "target.database", "a τ²-bench-format retail db.json", file)
    if isinstance(cfg.target, LLMAgentTarget) and cfg.target.policy is not None:
        _check_file(cfg.target.policy, "target.policy", "a policy document", file)
        read_user_text(Path(cfg.target.policy), max_bytes=POLICY_MAX_BYTES, what="policy document")


def _check_fault(kind: str, fault: str | None, file: str | None) -> None:
    if fault is None:
        return
    from adat.targets.plugins import fault_catalog

    known = fault_catalog(kind).fault_ids()
    if fault not in known:
        raise UserError(f"unknown fault {excerpt(fault)}", file=file, field="target.fault",
                        fix="use an id `adat faults` lists (e.g. " + ", ".join(known[:3]) + ")")


def _check_file(path: str | None, field: str, what: str, file: str | None) -> None:
    if path is not None and not Path(path).is_file():
        raise UserError(f"no file {excerpt(path)}", file=file, field=field, fix=f"give the path of {what}")


#: The tester roles each command's flows call (``adat.engine.stage_registry`` names the prompts behind
#: them): ``run`` discovers (planner, driver), extracts, grounds, generates and judges, and asks the
#: selector role only with ``selector.name: llm``; ``run-suite`` only judges; ``evaluate`` and
#: ``regress`` audit (the LLM auditor, for any target but the reference agent) and judge the faulty
#: variants' executions; ``baselines`` and ``ablation`` generate and judge (ablation: the selector
#: role when the llm selector is among its selectors). TDAD's roles belong to ``adat spec``.
COMMAND_ROLES: dict[str, tuple[str, ...]] = {
    "run": ("planner", "driver", "extractor", "grounder", "generator", "judge"),
    "run-suite": ("judge",),
    "evaluate": ("auditor", "judge"),
    "regress": ("auditor", "judge"),
    "baselines": ("generator", "judge"),
    "ablation": ("generator", "judge"),
}


def roles_used(cfg: RunConfig, command: str, *, selectors: list[str] | None = None) -> list[str]:
    """The tester roles ``command`` calls with ``cfg`` (``selectors``: an ablation's selectors)."""
    roles = list(COMMAND_ROLES[command])
    if (command == "run" and cfg.selector.name == "llm") or (command == "ablation" and "llm" in (selectors or [])):
        roles.append("selector")
    return roles


def check_roles_named(cfg: RunConfig, command: str, *, file: str | None = None,
                      selectors: list[str] | None = None) -> None:
    """No silent stand-in: with a target other than ``reference``, every role ``command`` uses must
    be named in the config — a real provider, or ``offline/heuristic`` written out on purpose —
    because an unset role defaults to the offline stand-in, whose verdicts are no model's.

    One-line :class:`UserError` naming the first unset role (and the others in the same line);
    the reference target (the demo's offline world) keeps the defaults.
    """
    if cfg.target.type == "reference":
        return
    named = cfg.models.model_fields_set if "models" in cfg.model_fields_set else set()
    unset = [role for role in roles_used(cfg, command, selectors=selectors) if role not in named]
    if not unset:
        return
    first, *rest = unset
    others = f" (nor {', '.join(f'models.{r}' for r in rest)})" if rest else ""
    uses = f"the {first} role" if not rest else f"the roles {', '.join(unset)}"
    raise UserError(f"not set{others}: with target {cfg.target.type!r}, adat {command} uses {uses}, which "
                    f"would silently default to the offline stand-in {OFFLINE_MODEL}", file=file,
                    field=f"models.{first}",
                    fix=f"set models.{first} to a real provider (e.g. openai/<model>), or to {OFFLINE_MODEL} "
                        "to use the stand-in on purpose")
