"""Insight memory schema (EvoGraph-Mem, seed 000): query graph (eq. 1) and insight graph (eqs. 5–6).

Vocabulary::

    (:Query {text, status: failed|resolved, embedding})            q_i = (Q_i, Ψ_i, G_inter)
    (:Query)-[:RELATED_QUERY]->(:Query)                             E_q (semantic dependencies)
    (:Query)-[:FIRST_STEP]->(:Step)-[:NEXT_STEP]->(:Step)           interaction graph G_inter
    (:Insight {content, active, version,                            ι_k = (κ_k, Ω+_k, Ω−_k, z_k)
               positive_evidence, negative_evidence})
    (:Insight)-[:SUPPORTS]->(:Query)                                Ω+ (positive evidence)
    (:Insight)-[:CONFLICTS_WITH]->(:Query)                          Ω− (negative evidence)
    (:Insight)-[:CONTEXTUALIZES {via_query}]->(:Insight)            hyper-edge (ι_m, ι_n, q_j)
    (:Insight)-[:REVISION_OF]->(:Insight)                           REVISE: new version -> old
    (:ControllerDecision {operation, controller, reason, ...})      audit of eqs. 11–12
    (:ControllerDecision)-[:FOR_QUERY]->(:Query)
    (:ControllerDecision)-[:DECIDED_ON]->(:Insight)                 the insight judged (KEEP/ARCHIVE/REVISE)
    (:ControllerDecision)-[:RESULTED_IN]->(:Insight)                the insight created (ADD/REVISE)
"""

from __future__ import annotations

from neomodel import (
    BooleanProperty,
    DateTimeProperty,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredRel,
)

from graphmem.schema.base import GraphmemNode, embedding_property


class ContextualizesRel(StructuredRel):
    """ι_m contextualizes ι_n, mediated by the query ``via_query`` (eq. 5's E_i)."""

    via_query = StringProperty(required=True)
    created_at = DateTimeProperty()


class EvidenceRel(StructuredRel):
    """One piece of evidence (Ω+ or Ω−); ``carried_from`` names the older version on REVISE."""

    created_at = DateTimeProperty()
    carried_from = StringProperty()


class Query(GraphmemNode):
    """A past task query q (eq. 1) with its outcome Ψ."""

    text = StringProperty(required=True)
    status = StringProperty(choices={"failed": "failed", "resolved": "resolved"})
    embedding = embedding_property()
    related = RelationshipTo("Query", "RELATED_QUERY")
    first_step = RelationshipTo("Step", "FIRST_STEP")


class Step(GraphmemNode):
    """One interaction step of a query's trajectory (a node of G_inter)."""

    content = StringProperty(required=True)
    position = IntegerProperty()
    query_id = StringProperty()
    next_step = RelationshipTo("Step", "NEXT_STEP")


class Insight(GraphmemNode):
    """An insight ι with activation z (eqs. 5–6); Ω+ = SUPPORTS, Ω− = CONFLICTS_WITH.

    ``positive_evidence``/``negative_evidence`` equal |Ω+| / |Ω−| and change only in the same
    Cypher statement that adds the evidence edge.
    """

    content = StringProperty(required=True)
    active = BooleanProperty(default=True)
    version = IntegerProperty(default=1)
    positive_evidence = IntegerProperty(default=0)
    negative_evidence = IntegerProperty(default=0)
    evidence_version = IntegerProperty(default=0)
    archived_at = DateTimeProperty()
    embedding = embedding_property(indexed=False)
    supports = RelationshipTo("Query", "SUPPORTS", model=EvidenceRel)
    conflicts_with = RelationshipTo("Query", "CONFLICTS_WITH", model=EvidenceRel)
    contextualizes = RelationshipTo("Insight", "CONTEXTUALIZES", model=ContextualizesRel)
    revision_of = RelationshipTo("Insight", "REVISION_OF")


class ControllerDecision(GraphmemNode):
    """Audit record of one graph-controller decision (eqs. 11–12).

    ``operation`` is KEEP, ARCHIVE, REVISE (eq. 11), ADD or NO_ADD (eq. 12); ``controller`` is
    ``heuristic`` or ``llm``; ``operation_set`` the allowed set (``add_keep``,
    ``add_keep_archive``, ``all``).
    """

    operation = StringProperty(required=True)
    controller = StringProperty(required=True)
    reason = StringProperty()
    status = StringProperty()
    operation_set = StringProperty()
    query_id = StringProperty()
    insight_id = StringProperty()
    for_query = RelationshipTo("Query", "FOR_QUERY")
    decided_on = RelationshipTo("Insight", "DECIDED_ON")
    resulted_in = RelationshipTo("Insight", "RESULTED_IN")
