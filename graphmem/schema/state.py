"""State memory schema (EMIR² SEMG, seed 002, relation taxonomy in its appendix Table 3).

Structural relations: FIRST_TIMELINE_NODE (Topic -> earliest Event), TEMPORAL_NEXT (earlier
Event -> later Event of the topic, event-time order), NEXT_TURN (Event -> the next Event of its
session, conversation order), INITIAL_STATE / CURRENT_STATE (Topic -> State; exactly
one CURRENT_STATE per topic), SEMANTIC_NEXT (earlier State -> successor), SUPPORTED_BY (Event or
State -> Topic). Evidence relations: EVIDENCED_BY (State -> supporting Event), CONFLICTS_WITH
(State -> State claimed for the same topic and time, both flagged ``conflict``), RELATED_EVENT
(Event - Event of another topic, ``similarity`` = cosine). People: MENTIONS (Event -> a Person
the turn names by one of its aliases; :mod:`graphmem.state.people`).
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredRel,
)

from graphmem.schema.base import GraphmemNode, embedding_property


class RelatedEventRel(StructuredRel):
    """RELATED_EVENT: cross-topic link; ``similarity`` is a cosine in [-1, 1]."""

    similarity = FloatProperty()


class Topic(GraphmemNode):
    """A topic chain head (one subject's topic in one conversation)."""

    name = StringProperty(required=True)
    key = StringProperty()
    subject = StringProperty()
    conversation = StringProperty(index=True)
    created_seq = IntegerProperty()
    chain_version = IntegerProperty()
    embedding = embedding_property(indexed=False)
    first_timeline_node = RelationshipTo("Event", "FIRST_TIMELINE_NODE")
    initial_state = RelationshipTo("State", "INITIAL_STATE")
    current_state = RelationshipTo("State", "CURRENT_STATE")


class Event(GraphmemNode):
    """An episodic unit (one turn) on a topic's timeline; ``source_ids`` are the turn ids.

    Also a retrieval unit of :mod:`graphmem.retrieval` (the properties of
    :func:`graphmem.retrieval.unit_rows`): ``embedding`` is the vector of its window text,
    ``lexical_*`` / ``ns_token`` feed the ``unit_lexical_event`` full-text index,
    ``prev_id`` / ``next_id`` name its session neighbours (conversation order, ``seq``), joined
    by NEXT_TURN (older -> newer). Range indexes beyond the single-property ones
    (migrations/V0050, V0060, V0070): ``(namespace, lexical_length)``, ``(namespace, speaker)``,
    ``(topic_id, sort_key)`` (chain neighbours), ``(namespace, conversation, session, seq)``
    (session neighbours).
    """

    text = StringProperty(required=True)
    speaker = StringProperty()
    subject = StringProperty()
    conversation = StringProperty()
    session = StringProperty()
    source_ids = ArrayProperty(StringProperty())
    occurred_at = DateTimeProperty(index=True)
    seq = IntegerProperty()
    sort_key = StringProperty(index=True)
    topic_id = StringProperty()
    embedding = embedding_property()
    vector_stamp = IntegerProperty()  # new random integer per vector write (retrieval vector cache)
    # a long message's passages (graphmem.retrieval.passages): flat [start, end) spans in text and
    # their vectors concatenated (passages x d floats); absent for a short message
    passage_spans = ArrayProperty(IntegerProperty())
    passage_embeddings = ArrayProperty(FloatProperty())
    lexical_text = StringProperty()
    lexical_terms = StringProperty()
    lexical_length = IntegerProperty()
    ns_token = StringProperty()
    is_cue = BooleanProperty()
    is_smalltalk = BooleanProperty()
    prev_id = StringProperty()
    next_id = StringProperty()
    message_json = StringProperty()  # the message's full serialised form (chat-history replay)
    # set by retention (graphmem.agent.retention), with ns_token then the namespace's archived
    # token: recall leaves the event out unless asked; it keeps every edge
    archived_at = DateTimeProperty()
    temporal_next = RelationshipTo("Event", "TEMPORAL_NEXT")
    next_turn = RelationshipTo("Event", "NEXT_TURN")
    supported_by = RelationshipTo("Topic", "SUPPORTED_BY")
    related_event = RelationshipTo("Event", "RELATED_EVENT", model=RelatedEventRel)
    mentions = RelationshipTo("Person", "MENTIONS")


class State(GraphmemNode):
    """A semantic state of a topic, valid from ``valid_from`` to ``valid_to`` (None = open).

    Range index ``(topic_id, valid_from)`` (migrations/V0070): a topic's states in time order.
    """

    content = StringProperty(required=True)
    value = StringProperty()
    condition = StringProperty()
    subject = StringProperty()
    conversation = StringProperty()
    mutable = BooleanProperty()
    conflict = BooleanProperty()
    evidence_count = IntegerProperty()
    topic_id = StringProperty()
    valid_from = DateTimeProperty(index=True)
    valid_to = DateTimeProperty()
    embedding = embedding_property(indexed=False)
    semantic_next = RelationshipTo("State", "SEMANTIC_NEXT")
    supported_by = RelationshipTo("Topic", "SUPPORTED_BY")
    evidenced_by = RelationshipTo("Event", "EVIDENCED_BY")
    conflicts_with = RelationshipTo("State", "CONFLICTS_WITH")


class ConversationLock(GraphmemNode):
    """A conversation's write lock in state memory: every batch of the conversation takes it
    first (``state/lock_topics``), so concurrent batches of one conversation serialise and each
    sees the session neighbours the ones before it stored (``batches`` counts the batches
    written; no edges). Constraint and index: migrations/V0090. ``unit_version`` (random at
creation, raised by every batch) is the retrieval engine's vector-cache token of the
conversation's Events (:mod:`graphmem.retrieval.vectors`)."""

    conversation = StringProperty(required=True)
    batches = IntegerProperty()
    unit_version = IntegerProperty()  # raised by every batch: the vector cache's token (V0110)
    people_events = IntegerProperty()  # events the people were last resolved from (people_store)


class Person(GraphmemNode):
    """A person of one conversation (:func:`graphmem.state.people.resolve_people`): a speaker or
    a third party the conversation talks about. ``key`` is stable within the conversation
    (``speaker:<label>`` / ``name:<alias>``, the id derived from namespace, conversation and
    key), ``name`` the display name, ``aliases`` the lower-cased names that refer to the person,
    ``speakers`` the speaker labels that are this person (empty for a third party). Replaced
    per conversation at each state ingest that stores new events; Events that name the person
    point to it by MENTIONS. Constraint and index: migrations/V0130."""

    conversation_id = StringProperty(required=True)
    key = StringProperty(required=True)
    name = StringProperty()
    aliases = ArrayProperty(StringProperty())
    speakers = ArrayProperty(StringProperty())
