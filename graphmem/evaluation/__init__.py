"""Evaluation and performance harness: ``graphmem eval`` (retrieval quality against vector-RAG
and BM25 baselines in the same run) and ``graphmem bench`` (recall latency at scale, ingest
throughput), each writing ``report.json``, ``report.md`` and PNG plots.

Modules: :mod:`~graphmem.evaluation.metrics` (pure: recall@k per category, percentiles,
ratios, targets), :mod:`~graphmem.evaluation.baselines` (langchain-neo4j ``Neo4jVector`` and
bm25s baselines), :mod:`~graphmem.evaluation.timing` (timed runner/embedder proxies),
:mod:`~graphmem.evaluation.locomo`, :mod:`~graphmem.evaluation.experience` (edit path vs exact
GED, same-task-type hit@5), :mod:`~graphmem.evaluation.report` (configuration record, JSON,
Markdown, plots), :mod:`~graphmem.evaluation.run_eval` (its plots and Markdown:
:mod:`~graphmem.evaluation.eval_report`), :mod:`~graphmem.evaluation.bench`.
"""
