"""Robustness wiring without a database: the shared time parser and key checks in the
conversation and trajectory readers, matching keys for cues and keyword queries, the validating
embedder on every memory, retriever options, duplicate-free state recall and the one numeric
parameter rule (check_count / check_number)."""

from __future__ import annotations

import json
import math
import unicodedata
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from fake_runner import FakeRunner, HashEmbedder, unit_columns

from graphmem.associative.extraction import normalise_cue
from graphmem.conversations import read_generic, read_locomo, read_memconflict
from graphmem.embeddings import ValidatingEmbedder
from graphmem.errors import EmbeddingDimensionError, InputFormatError, InvalidInputError
from graphmem.experience.trajectories import read_generic as read_trajectories_generic
from graphmem.facade import GraphMemory
from graphmem.memory import check_number
from graphmem.names import MAX_KEY_BYTES
from graphmem.langchain.retrievers import InsightRetriever, StateRetriever
from graphmem.langchain.retrievers.arguments import select_documents
from graphmem.state import StateMemory
from graphmem.state.topics import TopicAssigner, TopicRef

UTC = timezone.utc


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_generic_timestamp_zone_is_honoured(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "m.jsonl", [
        {"speaker": "Ann", "text": "I moved to Lyon.", "timestamp": "2024-03-01 10:00 PST"}])
    [conv] = read_generic(path)
    assert conv.turns[0].timestamp.astimezone(UTC) == datetime(2024, 3, 1, 18, 0, tzinfo=UTC)


def test_bad_dates_are_refused_naming_the_field(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "m.jsonl", [
        {"speaker": "Ann", "text": "hi", "timestamp": "session one"}])
    with pytest.raises(InputFormatError, match=r"line 1: timestamp 'session one'"):
        read_generic(path)
    sample = {"sample_id": "c1", "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "session one",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}
    loc = tmp_path / "l.json"
    loc.write_text(json.dumps([sample]))
    with pytest.raises(InputFormatError, match=r"session_1_date_time 'session one'"):
        read_locomo(loc)
    mc = _jsonl(tmp_path / "mc.jsonl", [{
        "ID": "p1", "Fixed_Profile": {"Name": "Jo"}, "Full_Session_Chain": [
            {"Session_ID": 3, "Date": "session one", "Session_Type": "x"}]}])
    with pytest.raises(InputFormatError, match=r"session 3 Date 'session one'"):
        read_memconflict(mc)


def test_long_ids_are_refused_by_every_reader(tmp_path: Path) -> None:
    long_id = "x" * (MAX_KEY_BYTES + 1)
    path = _jsonl(tmp_path / "m.jsonl", [
        {"speaker": "Ann", "text": "hi", "timestamp": "2024-01-01", "id": long_id}])
    with pytest.raises(InputFormatError, match="message id .*MAX_KEY_BYTES"):
        read_generic(path)
    path = _jsonl(tmp_path / "s.jsonl", [
        {"speaker": "Ann", "text": "hi", "timestamp": "2024-01-01", "session": long_id}])
    with pytest.raises(InputFormatError, match="session .*MAX_KEY_BYTES"):
        read_generic(path)
    sample = {"sample_id": long_id, "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}
    loc = tmp_path / "l.json"
    loc.write_text(json.dumps([sample]))
    with pytest.raises(InputFormatError, match="conversation id"):
        read_locomo(loc)
    traj = _jsonl(tmp_path / "t.jsonl", [{"task_id": long_id, "query": "q", "reward": 1.0,
                                          "steps": [{"action": "a", "observation": "o"}]}])
    with pytest.raises(InvalidInputError, match="task_id"):
        read_trajectories_generic(traj)


def test_non_finite_trajectory_scores_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"task_id": "t", "query": "q", "reward": 1.0, "steps": '
                    '[{"action": "a", "observation": "o", "score": NaN}]}\n')
    with pytest.raises(InvalidInputError, match=r"t\.jsonl:1: steps\[0\]\.score"):
        read_trajectories_generic(path)


def test_nfd_cue_and_lexical_terms_keep_the_word() -> None:
    from graphmem.retrieval.text import analyze

    nfd = unicodedata.normalize("NFD", "naïve")
    assert normalise_cue(nfd) == normalise_cue("naïve") == "naïve"
    assert normalise_cue(f"The {nfd} Café's") == "naïve café"
    assert analyze(unicodedata.normalize("NFC", f"Is the {nfd} plan in 東京 ready?")) == [
        "naïve", "plan", "東京", "ready"]


def test_memories_wrap_their_embedder_once() -> None:
    inner = HashEmbedder()
    mem = StateMemory(FakeRunner(), inner, "ns")
    assert isinstance(mem.embedder, ValidatingEmbedder) and mem.embedder.inner is inner
    again = StateMemory(FakeRunner(), mem.embedder, "ns")
    assert again.embedder is mem.embedder

    class NaNEmbedder(HashEmbedder):
        def embed_query(self, text: str) -> np.ndarray:
            return np.full(self.dimension, np.nan, dtype=np.float32)

    runner = FakeRunner()
    with pytest.raises(EmbeddingDimensionError):
        StateMemory(runner, NaNEmbedder(), "ns").recall("what?", k=2)
    assert runner.calls == []


def test_topic_of_another_width_is_skipped() -> None:
    vec = np.ones(4) / 2
    assigner = TopicAssigner([TopicRef("t1", "k1", "Ann", "old", np.ones(3)),
                              TopicRef("t2", "k2", "Ann", "zero", np.zeros(4)),
                              TopicRef("t3", "k3", "Ann", "ok", vec)])
    best, sim = assigner.nearest("Ann", vec)
    assert best is not None and best.id == "t3" and sim == pytest.approx(1.0)


def _state_script() -> dict:
    event = {"id": "e1", "text": "I work as a nurse.", "speaker": "Ann", "source_ids": ["d1"],
             "lexical_terms": "ann work nurse", "is_cue": False, "is_smalltalk": False,
             "prev_id": None, "next_id": None, "via_lexical": True, "via_dense": True,
             "dense": 0.6, "occurred_at": None, "topic_id": "t1", "conversation": "c",
             "session": "s1"}
    unit_row = {"n_units": 1, "avg_length": 3.0, "dfs": [["ann", 1], ["job", 0]],
                "dense_mode": "exact", "speakers": [["Ann", 1]], "units": [unit_columns(event)]}
    state = {"id": "s1", "content": "Ann works as a nurse", "value": "nurse",
             "condition": None, "subject": "Ann", "valid_from": None, "valid_to": None,
             "conflict": False, "current": True, "topic_id": "t1", "topic": "Ann: job",
             "evidence": ["e1"], "source_ids": ["d1"]}
    return {"retrieval/search_units@Event": [unit_row], "state/expand_states": [state]}


def test_state_recall_returns_one_item_per_evidence() -> None:
    runner = FakeRunner(_state_script())
    mem = StateMemory(runner, HashEmbedder(), "ns")
    result = mem.recall("What is Ann's job?", k=5)
    texts = [i.text for i in result.items]
    assert len(texts) == 1, texts
    assert runner.names() == ["retrieval/search_units@Event", "state/expand_states"]
    assert result.items[0].kind == "state" and result.items[0].also == ["e1"]
    doc = mem.documents(result)[0]
    assert doc.metadata["provenance"]["also"] == result.items[0].also
    assert result.items[0].also[0] in doc.metadata["node_ids"]


def test_retriever_options_are_honoured_or_refused() -> None:
    mem = GraphMemory(FakeRunner(_state_script()), HashEmbedder(), namespace="ns")
    r = StateRetriever(graph_memory=mem, search_kwargs={"k": 1})
    assert r.k == 1 and len(r.invoke("What is Ann's job?")) == 1
    assert StateRetriever(graph_memory=mem, score_threshold=5.0).invoke("Ann's job?") == []
    kept = StateRetriever(graph_memory=mem, filter={"kind": ["state"]}).invoke("Ann's job?")
    assert all(d.metadata["kind"] == "state" for d in kept)
    with pytest.raises(InvalidInputError, match=r"unsupported argument\(s\) \['fetch'\]; "
                                                 r"supported: .*score_threshold"):
        InsightRetriever(graph_memory=mem, fetch=3)
    with pytest.raises(InvalidInputError, match="search_kwargs key"):
        InsightRetriever(graph_memory=mem, search_kwargs={"lambda_mult": 0.5})
    with pytest.raises(InvalidInputError, match="filter key 'topic'"):
        InsightRetriever(graph_memory=mem, filter={"topic": "x"})
    with pytest.raises(InvalidInputError, match="score_threshold"):
        InsightRetriever(graph_memory=mem, score_threshold=math.nan)
    with pytest.raises(InvalidInputError, match="k must be"):
        InsightRetriever(graph_memory=mem, search_kwargs={"k": 2.5})
    with pytest.raises(InvalidInputError, match="given twice"):
        InsightRetriever(graph_memory=mem, k=2, search_kwargs={"k": 3})


def test_select_documents_filters_by_score_and_metadata() -> None:
    from langchain_core.documents import Document

    docs = [Document(page_content=str(i), id=str(i),
                     metadata={"score": s, "kind": kd, "memory": "state"})
            for i, (s, kd) in enumerate([(0.9, "event"), (0.2, "state"), (0.5, "state")])]
    assert [d.id for d in select_documents(docs, 0.4, None)] == ["0", "2"]
    assert [d.id for d in select_documents(docs, None, {"kind": ("state",)})] == ["1", "2"]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, True, "1", None, 10**400])
def test_check_number_refuses(value: object) -> None:
    with pytest.raises(InvalidInputError, match="lam must be a finite number"):
        check_number("lam", value, low=0.0)


def test_check_number_range() -> None:
    assert check_number("tau", 1, -1.0, 1.0) == 1.0
    with pytest.raises(InvalidInputError, match=r"tau must be a finite number in -1\.\.1"):
        check_number("tau", 1.5, -1.0, 1.0)
