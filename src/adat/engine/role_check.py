"""No silent stand-in (issue 25): which tester roles a command calls, and that a config for a real
agent names each of them.

Every role defaults to ``offline/heuristic`` (:class:`adat.config.RoleModels`), which is right for
the demo's offline world (the reference agent) and wrong for a user's agent: a config that forgets
the judge would have its "real" run graded by the stand-in without a word. So with a target other
than ``reference`` every role the command uses must be set in the config — a real provider, or
``offline/heuristic`` written out on purpose; pydantic's ``model_fields_set`` tells what the user
wrote. The CLI calls :func:`check_roles_named` right after loading a config, before preflight and
before any flow.
"""

from __future__ import annotations

from adat.config import OFFLINE_MODEL, RunConfig
from adat.errors import UserError

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
