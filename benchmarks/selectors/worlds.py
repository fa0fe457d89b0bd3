"""Simulated selection worlds for the selector benchmark, and their file format.

A *world* is what stays fixed across nights (boundaries, the instructions' true applicability);
a *night* is one run's ranked statements with every pair's outcome drawn in advance. A world
file holds the instructions and two nights drawn from one world: ``history`` (last night, for
the selectors that learn from earlier runs) and ``run`` (the night every selector is scored on).

File format (``numpy.savez_compressed``, ``.npz``; K instructions, S statements, D dims)::

    format                 "adat-selector-world/1"
    family, seed           which generator made it (free text / int; informative only)
    instruction_ids        (K,) str    instruction_factors (K,) str    catalog_prior (K,) float
    <night>_embeddings     (S, D) float   statement embeddings, in rank order
    <night>_boundary       (S,) int       the boundary each statement is about
    <night>_p_applicable   (S, K) float   true applicability probability (the oracle's knowledge)
    <night>_applicable     (S, K) bool    the drawn outcome: would the generator write a test
    <night>_pass_prob      (S, K) float   probability that the pair's test passes
    <night>_verdict        (S, K) int     drawn verdict: 0 pass, 1 inconclusive, 2 fail
    <night>_covered        (S, K) int     the boundary the pair's transformed test would cover
    <night>_na_reason      (S, K) int     optional: the generator's reason when it declines the pair:
                                          0 none given (or applicable), 1 ``statement``, 2 ``instruction``

with ``<night>`` = ``history`` and ``run``. Any tool may write such a file (e.g. from an audited
real run); ``run.py --world FILE`` scores every selector on it.

Not-applicable reasons. A generator that declines a pair says why, and its reason falls in one
of two kinds (``adat.contracts.adat2_roles.NA_REASONS``): ``statement`` — the statement lacks what this
*kind* of change needs (nothing to reword, no amount to alter…), a property of the statement and
the instruction's factor; or ``instruction`` — something specific to this one instruction. The
built-in worlds split each pair's logit into a factor-level statement term ``s_f(h)`` and an
instruction-specific term ``d_k(h)`` (the instruction's catalog error plus its own statement
effect) and, when the pair is not applicable, name the term that holds it back more:
P(statement | n/a) = sigmoid(2·(d_k(h) − s_f(h))). The reason is drawn from its own random
stream, so adding it changed no other draw.

Where a transformed test lands. A pair's test stays on its statement's boundary with a
probability set by the instruction's factor (``STAY_ON_BOUNDARY``: a rewording stays, a changed
value often crosses to another rule); otherwise it lands on another boundary of the statement's
class drawn for the pair (``moves="random"``, the default), or on the instruction's own
destination (``moves="instruction"``, ``run.py --moves instruction``): one boundary per
instruction, drawn once per world (as often as statements are about it), as "use another
user's order id" tests ownership whatever the statement. On the reference agent the pooled
selector's tests came from 3–6 instructions and covered fewer boundaries than adat2's
(docs/selection.md); ``instruction`` asks whether the default hides that. It does not: with it
``pooled`` still covers 1.3–1.4 × adat2's boundaries in every family (its top instruction is
a rewording, which stays), so the figures quoted use the default.

Families:

* ``classes`` — applicability = sigmoid(logit(catalog prior) + ε_k + δ_{k,class}): it differs
  between statement classes, independently per instruction (the original benchmark world).
* ``features`` — every boundary has a few binary *features* (an amount, an order state, an
  identity check, a time window …) that statements about it share and that show in their
  embeddings; each instruction factor *needs* some features and is hurt by others, and each
  instruction deviates a little from its factor. Applicability then depends on what a
  statement is about, shared across the instructions of one factor.
* ``mixed`` — (written as the held-out family after ``features`` had been looked at) boundaries
  fall into a few statement *clusters*; each factor fits a cluster or not (a sparse factor ×
  cluster table, +1 / −2 logits), and a quarter of the (instruction, cluster) cells are
  instruction-specific *exceptions* that go against the factor (±2.2). Applicability then
  depends on the statement's cluster, mostly shared within a factor, with exceptions an
  instruction-level learner must find.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from adat.records import Instruction

FORMAT = "adat-selector-world/1"
DIM = 384
NIGHTS = ("history", "run")
FAMILIES = ("classes", "features", "mixed")
MOVES = ("instruction", "random")
N_CLUSTERS = 5
REASON_NONE, REASON_STATEMENT, REASON_INSTRUCTION = 0, 1, 2
#: Share of a factor's transformed tests that stay on the statement's own boundary; the rest
#: reach another boundary of the same statement class (the other side / another boundary of §3.3).
STAY_ON_BOUNDARY = {"wording": 0.95, "social": 0.85, "channel": 0.7, "confirmation": 0.6, "sequence": 0.6}
STAY_DEFAULT = 0.45
N_FEATURES = 8


@dataclass
class Night:
    """One run's ranked statements and every pair's pre-drawn outcome."""

    embeddings: np.ndarray      # (S, D)
    boundary: np.ndarray        # (S,)
    p_applicable: np.ndarray    # (S, K)
    applicable: np.ndarray      # (S, K) bool
    pass_prob: np.ndarray       # (S, K)
    verdict: np.ndarray         # (S, K) 0 pass, 1 inconclusive, 2 fail
    covered: np.ndarray         # (S, K)
    na_reason: np.ndarray | None = None  # (S, K) 0 none, 1 statement, 2 instruction; None: no reasons


@dataclass
class WorldFile:
    """The contents of a world file (see the module docstring)."""

    family: str
    seed: int
    instruction_ids: list[str]
    instruction_factors: list[str]
    catalog_prior: np.ndarray
    nights: dict[str, Night]

    def instructions(self) -> list[Instruction]:
        return [Instruction(instruction_id=i, title=i, text=f"apply {i}", factor=f, applicability="see world file",
                            prior_applicability=float(p))
                for i, f, p in zip(self.instruction_ids, self.instruction_factors, self.catalog_prior, strict=True)]


def save_world(world: WorldFile, path: Path) -> None:
    arrays: dict[str, np.ndarray] = {
        "format": np.array(FORMAT), "family": np.array(world.family), "seed": np.array(world.seed),
        "instruction_ids": np.array(world.instruction_ids), "instruction_factors": np.array(world.instruction_factors),
        "catalog_prior": np.asarray(world.catalog_prior, dtype=float)}
    for name, night in world.nights.items():
        for f in fields(Night):
            if getattr(night, f.name) is not None:
                arrays[f"{name}_{f.name}"] = getattr(night, f.name)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]


def load_world(path: Path) -> WorldFile:
    """Read a world file; a missing or malformed array is a one-line ``ValueError`` naming it."""
    with np.load(path, allow_pickle=False) as data:
        if "format" not in data or str(data["format"]) != FORMAT:
            raise ValueError(f"{path}: not a selector world file (format must be {FORMAT!r})")
        missing = [f"{n}_{f.name}" for n in NIGHTS for f in fields(Night)
                   if f"{n}_{f.name}" not in data and f.name != "na_reason"]
        missing += [k for k in ("instruction_ids", "instruction_factors", "catalog_prior") if k not in data]
        if missing:
            raise ValueError(f"{path}: missing arrays {missing}")
        k = len(data["instruction_ids"])
        nights = {n: Night(**{f.name: data[f"{n}_{f.name}"] for f in fields(Night) if f"{n}_{f.name}" in data})
                  for n in NIGHTS}
        for n, night in nights.items():
            s = len(night.embeddings)
            for f in fields(Night):
                if getattr(night, f.name) is None:
                    continue
                shape = getattr(night, f.name).shape
                want = (s,) if f.name == "boundary" else (s, night.embeddings.shape[1]) if f.name == "embeddings" \
                    else (s, k)
                if shape != want:
                    raise ValueError(f"{path}: {n}_{f.name} has shape {shape}, expected {want}")
        return WorldFile(family=str(data["family"]) if "family" in data else "file",
                         seed=int(data["seed"]) if "seed" in data else -1,
                         instruction_ids=[str(x) for x in data["instruction_ids"]],
                         instruction_factors=[str(x) for x in data["instruction_factors"]],
                         catalog_prior=np.asarray(data["catalog_prior"], dtype=float), nights=nights)


def loosen_reasons(world: WorldFile, share: float) -> WorldFile:
    """The same world with a loose tagger: each declined pair's reason is ``statement`` with
    probability ``share`` whatever held it back (an LLM, or the offline stand-in, that says
    "the statement lacks it" for anything missing). Its own random stream: no other draw moves."""
    if share <= 0.0:
        return world
    nights = {}
    for i, (name, night) in enumerate(world.nights.items()):
        if night.na_reason is None:
            nights[name] = night
            continue
        rng = np.random.default_rng([world.seed, i, 3])
        loose = (rng.random(night.na_reason.shape) < share) & (night.na_reason != REASON_NONE)
        nights[name] = dataclasses.replace(night, na_reason=np.where(loose, REASON_STATEMENT, night.na_reason)
                                           .astype(np.int8))
    return dataclasses.replace(world, nights=nights)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 0.01, 0.99)
    return np.log(p / (1 - p))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _draw_outcomes(rng: np.random.Generator, p_app: np.ndarray, pass_prob: np.ndarray, boundary: np.ndarray,
                   boundary_class: np.ndarray, stay: np.ndarray, emb: np.ndarray,
                   destination: np.ndarray | None = None) -> Night:
    s, k = p_app.shape
    applicable = rng.random((s, k)) < p_app
    passed = rng.random((s, k)) < pass_prob
    verdict = np.where(passed, 0, np.where(rng.random((s, k)) < 0.4, 1, 2))
    covered = np.repeat(boundary[:, None], k, axis=1)
    moves = rng.random((s, k)) >= stay[None, :]
    # a moved test reaches a uniformly drawn other boundary of the statement's class (if any)
    everyone = np.arange(len(boundary_class))
    others = [everyone[(boundary_class == boundary_class[b]) & (everyone != b)] for b in everyone]
    width = max(1, max(len(o) for o in others))
    table = np.array([np.pad(o, (0, width - len(o)), constant_values=-1) for o in others])
    lengths = np.array([len(o) for o in others])
    rows, cols = np.nonzero(moves)
    b = boundary[rows]
    pick = (rng.random(len(rows)) * np.maximum(lengths[b], 1)).astype(int)  # drawn in both models
    has = lengths[b] > 0
    covered[rows[has], cols[has]] = table[b[has], pick[has]]
    if destination is not None:  # the instruction decides where its moved test lands
        covered[rows, cols] = destination[cols]
    return Night(emb, boundary, p_app, applicable, pass_prob, verdict, covered)


def make_world(family: str, seed: int, instructions: Sequence[Instruction], *, statements: int = 130,
               boundaries: int = 40, classes: int = 8, prior_noise: float = 0.7, class_effect: float = 1.2,
               moves: str = "random") -> WorldFile:
    """A built-in world of ``family`` with its two nights; the same arguments give the same world.

    ``moves`` says where a transformed test that leaves its statement's boundary lands (see the
    module docstring): ``instruction`` (default) — a boundary of the statement's class fixed per
    instruction, so one instruction used on many statements of a class reaches the same one;
    ``random`` — drawn afresh for every pair (the model before session w12div)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown world family {family!r}: use one of {', '.join(FAMILIES)}")
    if moves not in MOVES:
        raise ValueError(f"unknown moves model {moves!r}: use one of {', '.join(MOVES)}")
    rng = np.random.default_rng(seed)
    prior = np.array([i.prior_applicability for i in instructions])
    factors = [i.factor for i in instructions]
    k = len(instructions)
    class_dirs = _unit(rng.normal(size=(classes, DIM)))
    boundary_dirs = _unit(rng.normal(size=(boundaries, DIM)))
    boundary_class = rng.integers(classes, size=boundaries)
    weight = 1.0 / np.arange(1, boundaries + 1) ** 0.8
    weight /= weight.sum()
    base_logit = _logit(prior) + rng.normal(0.0, prior_noise, size=k)   # the catalog is off by ~prior_noise
    pass_rate = rng.beta(6.0, 2.0, size=k)
    stay = np.array([STAY_ON_BOUNDARY.get(f, STAY_DEFAULT) for f in factors])
    if family == "classes":
        effect = rng.normal(0.0, class_effect, size=(k, classes))
    elif family == "mixed":
        cluster_dirs = _unit(rng.normal(size=(N_CLUSTERS, DIM)))
        boundary_cluster = rng.integers(N_CLUSTERS, size=boundaries)
        names = sorted(set(factors))
        fits = rng.random((len(names), N_CLUSTERS)) < 0.5
        table = np.where(fits, 1.0, -2.0)
        fk = np.array([names.index(f) for f in factors])
        exception = rng.random((k, N_CLUSTERS)) < 0.25
        own = np.where(exception, -2.2 * np.sign(table[fk]), 0.0)            # (K, clusters)
        # Centre both terms over the clusters' statement shares so the catalog prior stays the mean.
        share = np.bincount(boundary_cluster, weights=weight, minlength=N_CLUSTERS)
        shared_term = table[fk] - (table[fk] @ share)[:, None]                # (K, clusters)
        own_term = own - (own @ share)[:, None]
    else:
        # Features per boundary; per factor, the features it needs (+) or that block it (−).
        feature_dirs = _unit(rng.normal(size=(N_FEATURES, DIM)))
        boundary_features = (rng.random((boundaries, N_FEATURES)) < 0.35).astype(float)
        names = sorted(set(factors))
        factor_w = {f: np.zeros(N_FEATURES) for f in names}
        for f in names:
            needs = rng.choice(N_FEATURES, size=2, replace=False)
            factor_w[f][needs[0]] = 2.5 * rng.choice([1.0, -1.0], p=[0.7, 0.3])
            factor_w[f][needs[1]] = rng.normal(0.0, 1.2)
        weights = np.array([factor_w[f] + rng.normal(0.0, 0.4, size=N_FEATURES) for f in factors])  # (K, F)
        shared_w = np.array([factor_w[f] for f in factors])
        # Centre each instruction's feature effect so the catalog prior stays its mean rate.
        offset = weights @ boundary_features.mean(axis=0)
    # its own stream: the destinations move no other draw; the same in both nights (a property of the world)
    destination = np.random.default_rng([seed, 5]).choice(boundaries, size=k, p=weight) if moves == "instruction" else None
    nights: dict[str, Night] = {}
    for name in NIGHTS:
        night_rng = np.random.default_rng([seed, NIGHTS.index(name)])
        boundary = night_rng.choice(boundaries, size=statements, p=weight)
        noise = _unit(night_rng.normal(size=(statements, DIM)))
        if family == "classes":
            # cos ≈ 0.8 within a boundary, ≈ 0.35 within a class, ≈ 0 otherwise.
            emb = _unit(0.6 * class_dirs[boundary_class[boundary]] + 0.7 * boundary_dirs[boundary] + 0.45 * noise)
            shared = np.zeros((statements, k))
            own_effect = effect[:, boundary_class[boundary]].T
        elif family == "mixed":
            emb = _unit(0.6 * cluster_dirs[boundary_cluster[boundary]] + 0.7 * boundary_dirs[boundary]
                        + 0.45 * noise)
            shared = shared_term[:, boundary_cluster[boundary]].T
            own_effect = own_term[:, boundary_cluster[boundary]].T
        else:
            # A statement mostly shares its boundary's features (10 % flipped); they show in its embedding.
            z = boundary_features[boundary].copy()
            flip = night_rng.random(z.shape) < 0.1
            z[flip] = 1.0 - z[flip]
            emb = _unit(0.5 * _unit(z @ feature_dirs + 1e-9) + 0.7 * boundary_dirs[boundary] + 0.45 * noise)
            shared = z @ shared_w.T - (shared_w @ boundary_features.mean(axis=0))[None, :]
            own_effect = z @ weights.T - offset[None, :] - shared
        p_app = _sigmoid(base_logit[None, :] + shared + own_effect)
        pass_prob = np.repeat(pass_rate[None, :], statements, axis=0)
        night = _draw_outcomes(night_rng, p_app, pass_prob, boundary, boundary_class, stay, emb, destination)
        own_term_h = (base_logit - _logit(prior))[None, :] + own_effect
        reason_rng = np.random.default_rng([seed, NIGHTS.index(name), 2])
        says_statement = reason_rng.random((statements, k)) < _sigmoid(2.0 * (own_term_h - shared))
        night.na_reason = np.where(night.applicable, REASON_NONE,
                                   np.where(says_statement, REASON_STATEMENT, REASON_INSTRUCTION)).astype(np.int8)
        nights[name] = night
    return WorldFile(family=family, seed=seed, instruction_ids=[i.instruction_id for i in instructions],
                     instruction_factors=factors, catalog_prior=prior, nights=nights)
