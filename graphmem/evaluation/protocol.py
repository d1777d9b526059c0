"""The evaluation protocol (pure; no I/O): gold evidence normalisation, the retrieval settings the
engine is evaluated under, and leave-one-conversation-out selection.

- :func:`normalise_evidence`: LoCoMo evidence ids as the conversation's own ``dia_id`` s — lists
  written in one string split (``"D8:6; D9:17"``, ``"D8:6 D9:17"``), malformed ids repaired
  (``"D:11:26"`` → ``"D11:26"``, ``"D30:05"`` → ``"D30:5"``), ids that name no turn dropped, so
  every remaining gold id can be retrieved.
- :class:`RetrievalSetting`: the few parameters of the engine and the memories' graph step — α
  (lexical weight), β (neighbour step), δ (entity step) of :mod:`graphmem.retrieval.fusion` and
  γ (graph step of the memories' later rounds) — applied to a facade's state and associative
  memories by :func:`apply_setting`.
- :func:`leave_one_out`: per held-out conversation, the setting with the best mean score on the
  other conversations (ties: the one nearest the shipped defaults), and the held-out scores under
  it — the cross-validated figure that carries to conversations never tuned on.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from graphmem.associative.reconstruction import ReconstructionConfig
from graphmem.retrieval import fusion
from graphmem.state.recall import GRAPH_WEIGHT

logger = logging.getLogger(__name__)

_ID = re.compile(r"^D:?(\d+):0*(\d+)$")
_SPLIT = re.compile(r"[;,\s]+")


def normalise_evidence(ids: Iterable[str], valid: set[str]) -> list[str]:
    """The gold ids of ``ids`` that name a turn of ``valid``, repaired and split (see the module
    docstring), unique, in order."""
    out: list[str] = []
    for raw in ids:
        for piece in _SPLIT.split(str(raw).strip()):
            if not piece:
                continue
            match = _ID.match(piece)
            gold = f"D{int(match.group(1))}:{int(match.group(2))}" if match else piece
            if gold in valid and gold not in out:
                out.append(gold)
    return out


@dataclass(frozen=True)
class RetrievalSetting:
    """One setting of the retrieval parameters (defaults: what graphmem ships).

    Attributes:
        alpha, beta, delta: α, β, δ of :class:`graphmem.retrieval.fusion.FusionParams`.
        cue_max_terms: the longest cue (distinct analyzed terms) the neighbour step follows
            (``FusionParams.cue_max_terms``).
        graph_weight: γ of the state memory's ``timeline`` / ``cross_topic`` / ``time_range``
            rounds and of the associative memory's reconstruction rounds.
        max_rounds: None = each memory's default round budget; 1 = the engine round only (state;
            associative: no reconstruction round).
    """

    alpha: float = fusion.ALPHA
    beta: float = fusion.BETA
    delta: float = fusion.DELTA
    graph_weight: float = GRAPH_WEIGHT
    max_rounds: int | None = None
    cue_max_terms: int = fusion.CUE_MAX_TERMS

    @property
    def name(self) -> str:
        """``a0.45-b0.8-d1-g0.25`` (plus ``-r1`` with a round budget)."""
        rounds = "" if self.max_rounds is None else f"-r{self.max_rounds}"
        cue = "" if self.cue_max_terms == fusion.CUE_MAX_TERMS else f"-c{self.cue_max_terms}"
        return (f"a{self.alpha:g}-b{self.beta:g}{cue}-d{self.delta:g}-g{self.graph_weight:g}"
                f"{rounds}")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "name": self.name}


SHIPPED = RetrievalSetting()

#: The grid leave-one-out chooses from (around the shipped values): α, β, δ, γ.
GRID_AXES = {"alpha": (0.4, 0.45, 0.5), "beta": (0.6, 0.8), "delta": (0.5, 1.0),
             "graph_weight": (0.0, 0.25)}

#: The ablation: what each part of the engine adds (shipped values elsewhere).
ABLATION = {
    "lexical_only": RetrievalSetting(alpha=1.0, beta=0.0, delta=0.0, graph_weight=0.0,
                                     max_rounds=1),
    "dense_only": RetrievalSetting(alpha=0.0, beta=0.0, delta=0.0, graph_weight=0.0,
                                   max_rounds=1),
    "fused": RetrievalSetting(beta=0.0, delta=0.0, graph_weight=0.0, max_rounds=1),
    "fused_neighbour_entity": RetrievalSetting(graph_weight=0.0, max_rounds=1),
    "plus_graph_expansion": SHIPPED,
}


def grid(axes: Mapping[str, Sequence[float]] = GRID_AXES) -> list[RetrievalSetting]:
    """Every combination of ``axes`` (shipped values for the axes not named)."""
    keys = list(axes)
    return [RetrievalSetting(**dict(zip(keys, values, strict=True)))
            for values in itertools.product(*(axes[k] for k in keys))]


def apply_setting(mem: Any, setting: RetrievalSetting) -> None:
    """Put ``setting`` on the state and associative memories of facade ``mem`` (their fusion
    parameters and graph weight; what every later recall through ``mem`` — the memories, the
    retrievers built on it — uses)."""
    params = fusion.FusionParams(alpha=setting.alpha, beta=setting.beta, delta=setting.delta,
                                 cue_max_terms=setting.cue_max_terms)
    state, assoc = mem.state, mem.associative
    state.fusion = params
    state.graph_weight = setting.graph_weight
    assoc.fusion = params
    assoc.config = ReconstructionConfig(**{**assoc.config.model_dump(),
                                           "graph_weight": setting.graph_weight})


def _distance(setting: RetrievalSetting) -> float:
    return (abs(setting.alpha - SHIPPED.alpha) + abs(setting.beta - SHIPPED.beta)
            + abs(setting.delta - SHIPPED.delta) + abs(setting.graph_weight - SHIPPED.graph_weight))


def rank_under_settings(plain: Any, cached: Any, question: str, depth: int,
                        settings: Mapping[str, RetrievalSetting], rank: Callable[..., Any],
                        runs: dict[str, dict[str, dict[Any, list[str]]]], key: Any,
                        latency: dict[str, list[float]]) -> None:
    """Rank ``question`` under every setting of ``settings`` (name -> setting): the shipped one
    on the ``plain`` tenant (its latency is appended to ``latency[method]``), the others on
    ``cached`` (a read cache over the same frozen database), each put on the tenant first
    (:func:`apply_setting`). ``rank(tenant, question, depth, setting)`` returns ``({method:
    ranked ids}, {method: ms})``; the ids of each method of ``runs[setting name]`` go to
    ``runs[setting name][method][key]``."""
    for name, setting in settings.items():
        tenant = plain if setting == SHIPPED else cached
        apply_setting(tenant, setting)
        ranked, ms = rank(tenant, question, depth, setting)
        for method in runs[name]:
            runs[name][method][key] = ranked[method]
            if setting == SHIPPED:
                latency[method].append(ms[method])


def drop_tenants(tenants: Mapping[str, Any], keep: bool = False) -> None:
    """Delete the namespace of every tenant facade of ``tenants`` (conversation -> facade) unless
    ``keep`` (a run's tenants, once scored)."""
    if not keep:
        for tenant in tenants.values():
            tenant.delete_namespace()


def leave_one_out(scores: Mapping[str, Mapping[str, Sequence[float]]],
                  settings: Mapping[str, RetrievalSetting]
                  ) -> tuple[dict[str, str], dict[str, list[float]]]:
    """Leave-one-conversation-out selection.

    Args:
        scores: ``{setting name: {conversation: [per-question score]}}`` (every setting has every
            conversation).
        settings: setting name -> setting (for the tie-break towards the shipped values).
    Returns:
        ``({held-out conversation: chosen setting name}, {held-out conversation: its per-question
        scores under the chosen setting})``.
    """
    names = sorted(scores)
    conversations = sorted(next(iter(scores.values()))) if scores else []
    picks: dict[str, str] = {}
    held: dict[str, list[float]] = {}
    for out in conversations:
        def train(name: str, out: str = out) -> float:
            values = [v for conv, vs in scores[name].items() if conv != out for v in vs]
            return sum(values) / len(values) if values else 0.0

        best = max(names, key=lambda n: (round(train(n), 6), -_distance(settings[n]), n))
        picks[out] = best
        held[out] = list(scores[best][out])
    return picks, held
