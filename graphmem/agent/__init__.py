"""graphmem for live agents: online writes of messages (``add``), one fused recall over the
memories (``recall``) and task outcomes (``feedback``); the facade's agent verbs
(:class:`graphmem.facade.GraphMemory`) call these.
"""

from graphmem.agent.messages import Message, next_sequence, parse_messages
from graphmem.agent.recall import FETCH_FACTOR, FusedItem, fuse_results, fused_recall, memories_with_data
from graphmem.agent.writes import TaskFeedback, add_messages, record_feedback

__all__ = ["FETCH_FACTOR", "FusedItem", "Message", "TaskFeedback", "add_messages",
           "fuse_results", "fused_recall", "memories_with_data", "next_sequence",
           "parse_messages", "record_feedback"]
