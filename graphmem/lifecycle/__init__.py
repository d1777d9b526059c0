"""Lifecycle of a whole namespace: export to a file and import from it.

``GraphMemory.export_namespace(path)`` writes every node and relationship of the namespace to
one versioned JSON-lines file (:mod:`graphmem.lifecycle.lines`; values:
:mod:`graphmem.lifecycle.values`), streamed page by page (:mod:`graphmem.lifecycle.export`).
``GraphMemory.import_namespace(path)`` writes such a file into an empty namespace of the same or
another server, under the same or another name (:mod:`graphmem.lifecycle.import_`; ids of a
renamed namespace: :mod:`graphmem.lifecycle.rekey`), and resumes an interrupted import of the
same file. Also ``graphmem export -n NS FILE`` / ``graphmem import -n NS FILE``. The format, the
id mapping, resumption, errors and measured costs: docs/export-import.md.
"""

from __future__ import annotations

from graphmem.lifecycle.export import ExportReport, export_namespace, namespace_nodes
from graphmem.lifecycle.import_ import ImportReport, import_namespace
from graphmem.lifecycle.lines import FORMAT_NAME, FORMAT_VERSION, read_end

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "ExportReport", "ImportReport", "export_namespace",
           "import_namespace", "namespace_nodes", "read_end"]
