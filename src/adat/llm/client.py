"""The one LLM client wrapper: prompts, retries, cache, structured output, accounting.

Providers only make the call; everything else happens here, the same way for ``openai``,
``offline`` and ``fake`` models:

* the model of a tester role comes from ``cfg.models``; the agent under test names its own;
* transient errors (what the openai SDK itself would retry: 408, 409, 429, 5xx, timeouts,
  connection errors, unless the server says ``x-should-retry: false``) are retried by tenacity up
  to ``llm.max_retries`` times with exponential backoff and full jitter, waiting at least the
  server's ``Retry-After`` (capped by ``llm.backoff_max_s``); the SDK's own retries stay off;
* a structured answer is asked for in the form the endpoint accepts (:mod:`adat.llm.output_modes`,
  recorded on the row), parsed tolerantly and validated, content included; an invalid one gets
  ONE repair request (the invalid answer plus the error); if that fails too the call raises
  :class:`LLMError` and its row records the error (``invalid_answers`` counts both);
* a request over its model's context (``llm.context_tokens`` minus ``llm.max_output_tokens``) is cut
  first, deterministically, by the rule of :mod:`adat.llm.context_budget`; the row records the cut;
* before each request goes out a line is appended to the run's request journal
  (:mod:`adat.llm.call_journal`), so a crash cannot hide a request from ``llm_calls``;
* accepted answers are cached on disk (``llm.cache``); a hit calls no provider;
* every logical call is ONE :class:`LLMCall` row: transient retries are counted in ``retries``
  and a repair attempt is folded into the same row (``repaired=True``, tokens and latency
  summed). A cache hit's row has ``cache_hit=True``, ``cost_usd=0`` and the cached answer's token
  counts (what the call would have used), so "tokens spent" is ``WHERE NOT cache_hit``;
* a call that would reach a provider first claims one call of the run's budget
  (:mod:`adat.llm.budget`); at a limit it raises :class:`BudgetExhausted`, records no row for the
  call it did not make, and hands the rows so far to ``sink`` so they are written before the stop.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from tenacity import RetryCallState, RetryError, Retrying, retry_if_exception_type, stop_after_attempt

from adat import config
from adat.config import RunConfig
from adat.llm.budget import BudgetExhausted, BudgetMeter, current_phase
from adat.llm.call_journal import CallJournal
from adat.llm.context_budget import Cut, fit_request, input_budget
from adat.llm.output_modes import DEFAULT_MODE, cached_mode
from adat.llm.output_schema import OutputInvalid, parse_output, repair_message, response_schema, schema_name
from adat.llm.pricing import call_cost_usd
from adat.llm.prompts import PromptTemplate, load_prompt
from adat.llm.providers.provider_registry import ProviderRegistry, default_registry
from adat.llm.response_cache import ResponseCache, cache_key
from adat.llm.types import LLMError, LLMRequest, LLMResponse, Provider, TransientProviderError
from adat.records import LLMCall

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
log = logging.getLogger(__name__)


@dataclass
class _Meter:
    """What one logical call used, across retries and the repair attempt."""

    input_tokens: int = 0
    output_tokens: int = 0
    retries: int = 0
    cache_hit: bool = False
    repaired: bool = False
    invalid_answers: int = 0
    cut: Cut = field(default_factory=Cut)
    call_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def add(self, response: LLMResponse) -> None:
        self.input_tokens += response.input_tokens
        self.output_tokens += response.output_tokens


@dataclass(frozen=True)
class _Bound:
    """A resolved ``provider/model``."""

    provider_name: str
    model: str
    provider: Provider
    cacheable: bool


class LLMClient:
    """Calls LLMs for one run and accumulates its :class:`LLMCall` rows (see :meth:`drain_calls`)."""

    def __init__(self, cfg: RunConfig, run_id: str, *, prompts_dir: Path | None = None,
                 cache_dir: Path | None = None, registry: ProviderRegistry | None = None,
                 sleep: Callable[[float], None] = time.sleep, budget: BudgetMeter | None = None,
                 sink: Callable[[], object] | None = None, journal: CallJournal | None = None) -> None:
        self.cfg = cfg
        self.run_id = run_id
        self.phase = budget.phase if budget is not None else current_phase()
        self._budget = budget
        self._sink = sink  # writes drained rows (RunContext.flush_calls); called when the budget stops the run
        self._journal = journal
        self.prompts_dir = Path(prompts_dir) if prompts_dir else config.adat_home() / "catalogs" / "prompts"
        self.registry = registry if registry is not None else default_registry()
        self._cache = ResponseCache(cache_dir or config.cache_dir(cfg)) if cfg.llm.cache else None
        self._sleep = sleep
        self._rng = random.Random(cfg.seed)
        self._lock = threading.Lock()
        self._bound: dict[str, _Bound] = {}
        self._prompts: dict[str, PromptTemplate] = {}
        self._calls: list[LLMCall] = []
        self._unpriced_warned: set[str] = set()
        #: real provider invocations (every retry and repair counts; cache hits do not)
        self.provider_calls = 0
        #: per role since this client was built: logical calls, failed ones, invalid answers, last error
        self.role_calls: Counter[str] = Counter()
        self.role_failures: Counter[str] = Counter()
        self.role_invalid: Counter[str] = Counter()
        self.last_error: dict[str, str] = {}

    # --- public surface ------------------------------------------------------------------
    def structured(self, role: str, prompt_id: str, variables: dict[str, Any], output: type[T],
                   *, cache_tag: str = "") -> T:
        """Render ``prompt_id`` for ``role`` and return the answer validated into ``output``."""
        bound = self._bind(self.cfg.models.for_role(role))
        template = self._prompt(prompt_id)
        schema, strict = response_schema(output)
        # an openai endpoint gets the form configured, else probed (preflight), else json_schema;
        # other providers take the schema as it is
        openai = bound.provider_name == "openai"
        mode = (cached_mode(self.cfg, bound.model) or DEFAULT_MODE) if openai else DEFAULT_MODE
        request = self._request(role, bound, template.render(variables), template, variables,
                                response_schema=schema, schema_name=schema_name(output), schema_strict=strict,
                                output_mode=mode)

        def finish(response: LLMResponse, meter: _Meter, request: LLMRequest) -> tuple[T, LLMResponse]:
            try:
                return parse_output(response.content, output), response
            except OutputInvalid as exc:
                reason = str(exc)
            meter.invalid_answers += 1
            meter.repaired = True
            log.info("invalid %s output from %s/%s, asking once for a repair: %s",
                     output.__name__, bound.provider_name, bound.model, reason)
            repair = request.model_copy(update={"messages": [
                *request.messages,
                {"role": "assistant", "content": response.content or ""},
                {"role": "user", "content": repair_message(reason)},
            ]})
            second = self._send(bound, repair, meter, kind="repair")
            try:
                return parse_output(second.content, output), second
            except OutputInvalid as exc:
                meter.invalid_answers += 1
                raise LLMError(f"invalid {output.__name__} output after one repair: {exc}") from None

        return self._logical_call(bound, request, cache_tag, lambda r: parse_output(r.content, output), finish)

    def text(self, role: str, prompt_id: str, variables: dict[str, Any], *, cache_tag: str = "") -> str:
        """Render ``prompt_id`` for ``role`` and return the plain text answer."""
        bound = self._bind(self.cfg.models.for_role(role))
        template = self._prompt(prompt_id)
        request = self._request(role, bound, template.render(variables), template, variables)

        def content(response: LLMResponse) -> str:
            if response.content is None:
                raise LLMError(f"{bound.provider_name}/{bound.model} returned no text content")
            return response.content

        return self._logical_call(bound, request, cache_tag, content, lambda r, m, q: (content(r), r))

    def chat(self, role: str, messages: list[dict[str, Any]], *, model: str,
             tools: list[dict[str, Any]] | None = None, cache_tag: str = "") -> LLMResponse:
        """One raw chat turn without a prompt file (the llm-agent host uses it with ``role='agent'``).

        ``cache_tag`` separates otherwise identical requests, e.g. repeated runs for pass^k.
        """
        bound = self._bind(model)
        request = self._request(role, bound, messages, None, {}, tools=tools or None)
        return self._logical_call(bound, request, cache_tag, lambda r: r, lambda r, m, q: (r, r))

    def drain_calls(self) -> list[LLMCall]:
        """The rows accumulated since the last drain (the pipeline writes them to the warehouse)."""
        with self._lock:
            calls, self._calls = self._calls, []
        return calls

    # --- internals -----------------------------------------------------------------------
    def _bind(self, spec: str) -> _Bound:
        with self._lock:
            bound = self._bound.get(spec)
        if bound is None:
            name, model, provider = self.registry.create(spec, self.cfg)
            bound = _Bound(name, model, provider, bool(getattr(provider, "cacheable", True)))
            with self._lock:
                bound = self._bound.setdefault(spec, bound)
        return bound

    def _prompt(self, prompt_id: str) -> PromptTemplate:
        if prompt_id not in self._prompts:
            self._prompts[prompt_id] = load_prompt(prompt_id, self.prompts_dir)
        return self._prompts[prompt_id]

    def _request(self, role: str, bound: _Bound, messages: list[dict[str, Any]], template: PromptTemplate | None,
                 variables: dict[str, Any], **extra: Any) -> LLMRequest:
        return LLMRequest(role=role, provider=bound.provider_name, model=bound.model, messages=messages,
                          temperature=self.cfg.llm.temperature, max_tokens=self.cfg.llm.max_output_tokens,
                          prompt_id=template.id if template else "",
                          prompt_version=template.version if template else "",
                          variables=variables, **extra)

    def _logical_call(self, bound: _Bound, request: LLMRequest, tag: str, parse: Callable[[LLMResponse], R],
                      finish: Callable[[LLMResponse, _Meter, LLMRequest], tuple[R, LLMResponse]]) -> R:
        """Context cut, cache lookup, provider call(s), acceptance, cache write and the one LLMCall row."""
        meter = _Meter()
        started, t0 = datetime.now(UTC), time.perf_counter()
        error: str | None = None
        cache = self._cache if bound.cacheable else None
        try:
            # Cut before keying: the key then names the request actually sent, and a context
            # budget changes the key exactly when it changes the request.
            template = self._prompt(request.prompt_id) if request.prompt_id else None
            if getattr(bound.provider, "context_limited", True):  # a stand-in without a window is not cut
                request, meter.cut = fit_request(request, input_budget(self.cfg.llm, bound.provider_name,
                                                                       bound.model), template)
            if meter.cut.rule:
                log.info("%s/%s: %s input cut to fit its context: %s", bound.provider_name, bound.model,
                         request.prompt_id or request.role, meter.cut.rule)
            # The same model name on two servers (OpenAI vs a local vLLM) may answer differently.
            endpoint = (self.cfg.llm.base_url or "") if bound.provider_name == "openai" else ""
            key = cache_key(request, endpoint=endpoint, tag=tag) if cache is not None else ""
            if cache is not None:
                cached = cache.get(key)
                if cached is not None:
                    try:
                        result = parse(cached)
                    except (OutputInvalid, LLMError):
                        log.warning("cached LLM answer no longer validates; calling the provider")
                    else:
                        meter.cache_hit = True
                        meter.add(cached)
                        return result
            if self._budget is not None:
                self._budget.reserve()
            response = self._send(bound, request, meter)
            result, accepted = finish(response, meter, request)
            if cache is not None:
                cache.put(key, request, accepted)
            return result
        except BudgetExhausted:
            error = "budget"
            raise
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            if error != "budget":  # the call was never made: no row
                self._record(bound, request, meter, time.perf_counter() - t0, started, error)
            if self._budget is not None and self._budget.exhausted is not None and self._sink is not None:
                self._sink()  # the run stops: write the rows so far (and those of calls still in flight)

    def _send(self, bound: _Bound, request: LLMRequest, meter: _Meter, kind: str = "send") -> LLMResponse:
        """One provider answer, retrying transient errors (tenacity) with backoff; each request journaled first."""
        llm = self.cfg.llm

        def wait(state: RetryCallState) -> float:
            """Full jitter over an exponentially growing cap; never less than Retry-After (capped)."""
            cap = min(llm.backoff_max_s, llm.backoff_base_s * 2 ** (state.attempt_number - 1))
            exc = state.outcome.exception() if state.outcome is not None else None
            retry_after = getattr(exc, "retry_after_s", None)
            delay = self._rng.uniform(0.0, cap)
            return delay if retry_after is None else max(delay, min(retry_after, llm.backoff_max_s))

        def before_sleep(state: RetryCallState) -> None:
            meter.retries += 1
            log.warning("transient error from %s/%s (%s); retry %d of %d in %.2f s", bound.provider_name,
                        bound.model, state.outcome.exception() if state.outcome else "?", state.attempt_number,
                        llm.max_retries, state.upcoming_sleep)

        kinds = iter([kind])  # the first request is ``kind``, every further one a retry

        def attempt() -> LLMResponse:
            # journaled before it goes out (adat.llm.call_journal); the offline stand-in spends nothing
            if self._journal is not None and bound.cacheable:
                self._journal.sent(LLMCall(call_id=meter.call_id, run_id=self.run_id, role=request.role,
                                           provider=bound.provider_name, model=bound.model,
                                           prompt_id=request.prompt_id, prompt_version=request.prompt_version,
                                           ts=datetime.now(UTC), phase=self.phase), next(kinds, "retry"))
            with self._lock:
                self.provider_calls += 1
            return bound.provider.complete(request)

        retrying = Retrying(stop=stop_after_attempt(llm.max_retries + 1), wait=wait, sleep=self._sleep,
                            retry=retry_if_exception_type(TransientProviderError), before_sleep=before_sleep)
        try:
            response = retrying(attempt)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise LLMError(f"gave up after {exc.last_attempt.attempt_number} attempts: {last}") from None
        meter.add(response)
        return response

    def _record(self, bound: _Bound, request: LLMRequest, meter: _Meter, latency_s: float,
                started: datetime, error: str | None) -> None:
        cost, priced = call_cost_usd(bound.provider_name, bound.model, meter.input_tokens,
                                     meter.output_tokens, self.cfg.llm.prices_usd_per_mtok)
        spec = f"{bound.provider_name}/{bound.model}"
        with self._lock:  # check-and-add under the lock: concurrent calls must warn once, not once each
            first_unpriced = not priced and spec not in self._unpriced_warned
            if first_unpriced:
                self._unpriced_warned.add(spec)
        if first_unpriced:
            log.warning("no price for %s; its cost is recorded as 0 (set llm.prices_usd_per_mtok)", spec)
        row = LLMCall(
            call_id=meter.call_id, run_id=self.run_id, role=request.role,
            provider=bound.provider_name, model=bound.model,
            prompt_id=request.prompt_id, prompt_version=request.prompt_version,
            input_tokens=meter.input_tokens, output_tokens=meter.output_tokens,
            cost_usd=0.0 if meter.cache_hit else cost, latency_s=latency_s, cache_hit=meter.cache_hit,
            retries=meter.retries, error=error, ts=started, repaired=meter.repaired, priced=priced,
            phase=self.phase, invalid_answers=meter.invalid_answers,
            output_mode=request.output_mode if request.response_schema is not None else "",
            cut_chars=meter.cut.chars, cut_items=meter.cut.items, cut_rule=meter.cut.rule,
        )
        if self._budget is not None and not meter.cache_hit:
            self._budget.spend(meter.input_tokens + meter.output_tokens, row.cost_usd)
        log.debug("llm call role=%s model=%s prompt=%s@%s tokens=%d/%d cache_hit=%s retries=%d error=%s",
                  row.role, spec, row.prompt_id, row.prompt_version, row.input_tokens, row.output_tokens,
                  row.cache_hit, row.retries, error)
        with self._lock:
            self._calls.append(row)
            self.role_calls[row.role] += 1
            self.role_invalid[row.role] += row.invalid_answers
            if error is not None:
                self.role_failures[row.role] += 1
                self.last_error[row.role] = error
