"""Activation of a variant: make it (attempt by attempt) until its probe shows the violation.

A variant is activated when the probe's predicates hold on it and do NOT hold on the base: a
probe that already "violates" on the unmutated agent cannot tell the two apart, so such a
variant is never activated, and neither is one whose probe cannot be observed (None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass
class ActivationResult(Generic[V]):
    variant: V | None
    activated: bool
    attempts: int
    holds_on_base: bool | None


def activate(make: Callable[[int], V], holds: Callable[[V], bool | None], *, base_holds: bool | None,
             max_attempts: int) -> ActivationResult[V]:
    """Try ``make(0)``, ``make(1)``, ... up to ``max_attempts`` until ``holds(variant)`` is True.

    With ``base_holds`` True (or None: the base run showed nothing) no attempt can activate the
    variant; the first one is still made so that it is recorded.
    """
    if max_attempts < 1:
        raise ValueError("max_attempts must be >= 1")
    variant: V | None = None
    for attempt in range(max_attempts):
        variant = make(attempt)
        if base_holds is not False:
            return ActivationResult(variant, False, attempt + 1, base_holds)
        if holds(variant) is True:
            return ActivationResult(variant, True, attempt + 1, base_holds)
    return ActivationResult(variant, False, max_attempts, base_holds)
