"""AgentEval's workflow graph, mined from discovery traces (Lin et al., 2026; AdaT2 paper §1, §4.2).

* **Nodes** are clusters of agent replies by activity: every agent reply is embedded and the
  replies are clustered agglomeratively (average linkage over cosine distance) with a similarity
  threshold, so the result depends only on the replies and their order — no random seed.
* **Edges** are the user messages that move a conversation from one node to another: a user
  message between a reply of node A and the next reply, of node B ≠ A, lies on edge A→B; the
  first user message of a conversation lies on the edge from the ``start`` pseudo-node. Messages
  that keep the conversation in the same activity (A→A) move nowhere and form no edge.
* Every node and edge keeps its **path**: the shortest discovery conversation prefix that
  reaches it (ties: trace order, then turn order); the test generator perturbs its user messages.

Node ids are ``n01``, ``n02``, … in order of first appearance; edge ids ``<from>><to>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from adat.records import Trace, Turn

START = "start"
Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class ReplyRef:
    """One agent reply: which trace, which turn, what it says."""

    trace_index: int
    turn: int
    text: str


@dataclass
class WorkflowNode:
    """An activity of the agent: the replies clustered together, representative (medoid) first."""

    node_id: str
    replies: list[ReplyRef]
    path: list[Turn] = field(default_factory=list)

    def samples(self, k: int) -> list[str]:
        """Up to ``k`` distinct reply texts, the medoid first."""
        return list(dict.fromkeys(r.text for r in self.replies))[:k]


@dataclass
class WorkflowEdge:
    """User messages that move a conversation from ``source`` to ``target``."""

    source: str
    target: str
    messages: list[str]
    path: list[Turn] = field(default_factory=list)

    @property
    def edge_id(self) -> str:
        return f"{self.source}>{self.target}"


@dataclass
class WorkflowGraph:
    nodes: list[WorkflowNode]
    edges: list[WorkflowEdge]

    def node(self, node_id: str) -> WorkflowNode:
        return next(n for n in self.nodes if n.node_id == node_id)


def cluster_labels(vectors: np.ndarray, similarity: float) -> list[int]:
    """Average-linkage agglomerative clusters of the rows of ``vectors``: two clusters merge while
    the mean cosine similarity between their members is at least ``similarity``.

    Labels are 0, 1, … in order of each cluster's first row, so equal inputs give equal labels.
    """
    count = len(vectors)
    if count == 0:
        return []
    if count == 1:
        return [0]
    from scipy.cluster.hierarchy import fcluster, linkage

    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    condensed = np.clip(1.0 - (unit @ unit.T)[np.triu_indices(count, k=1)], 0.0, 2.0)
    raw = fcluster(linkage(condensed, method="average"), t=1.0 - similarity, criterion="distance")
    first_seen: dict[int, int] = {}
    return [first_seen.setdefault(int(label), len(first_seen)) for label in raw]


def mine_workflow_graph(traces: Sequence[Trace], embed: Embed, similarity: float) -> WorkflowGraph:
    """The workflow graph of ``traces`` (in the order given); ``embed`` maps texts to vectors."""
    replies = [ReplyRef(ti, j, turn.text) for ti, trace in enumerate(traces)
               for j, turn in enumerate(trace.turns) if turn.role == "agent" and turn.text.strip()]
    if not replies:
        return WorkflowGraph(nodes=[], edges=[])
    vectors = np.asarray(embed([r.text for r in replies]), dtype=np.float64)
    labels = cluster_labels(vectors, similarity)
    nodes = [WorkflowNode(node_id=f"n{label + 1:02d}", replies=[]) for label in range(max(labels) + 1)]
    node_of = {(r.trace_index, r.turn): nodes[label] for r, label in zip(replies, labels, strict=True)}
    for reply, label in zip(replies, labels, strict=True):
        nodes[label].replies.append(reply)
    for label, node in enumerate(nodes):
        node.replies = _medoid_first(node.replies, vectors[[i for i, lab in enumerate(labels) if lab == label]])

    edges: dict[tuple[str, str], WorkflowEdge] = {}
    for ti, trace in enumerate(traces):
        previous = START
        for j in range(len(trace.turns)):
            reached = node_of.get((ti, j))
            if reached is None:
                continue
            current = reached.node_id
            prefix = list(trace.turns[: j + 1])
            message = _last_user_message(trace.turns[:j])
            reached.path = _shorter(prefix, reached.path)
            if current != previous and message is not None:
                edge = edges.setdefault((previous, current), WorkflowEdge(previous, current, []))
                if message not in edge.messages:
                    edge.messages.append(message)
                edge.path = _shorter(prefix, edge.path)
            previous = current
    order = {n.node_id: i for i, n in enumerate(nodes)} | {START: -1}
    ordered = sorted(edges.values(), key=lambda e: (order[e.source], order[e.target]))
    return WorkflowGraph(nodes=nodes, edges=ordered)


def _medoid_first(replies: list[ReplyRef], vectors: np.ndarray) -> list[ReplyRef]:
    """The member most similar on average to the others first; the rest in trace order."""
    if len(replies) <= 2:
        return replies
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    medoid = int(np.argmax((unit @ unit.T).mean(axis=1)))  # argmax takes the first of equal scores
    return [replies[medoid], *replies[:medoid], *replies[medoid + 1:]]


def _shorter(prefix: list[Turn], path: list[Turn]) -> list[Turn]:
    """``prefix`` if it has fewer user turns than ``path`` (or ``path`` is empty), else ``path``:
    strictly fewer only, so among equally short paths the earliest (trace, turn) one stays."""
    user_turns = [sum(1 for t in turns if t.role == "user") for turns in (prefix, path)]
    return prefix if not path or user_turns[0] < user_turns[1] else path


def _last_user_message(turns: Sequence[Turn]) -> str | None:
    for turn in reversed(turns):
        if turn.role == "user":
            return turn.text if turn.text.strip() else None
        if turn.role == "agent":
            return None  # two replies in a row: no user message moved the conversation
    return None
