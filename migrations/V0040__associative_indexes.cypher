// V0040 associative memory (MRAgent): lookups of the Cue-Tag-Content graph.
// - cue text within a namespace (question cues matched by normalised text; MERGE key of a cue)
// - phi((c,g)->v): a Tag by (namespace, cue_id, text) is one index seek
// - episodes by source id (LoCoMo dia_id) for Browser views and evaluation
CREATE INDEX cue_namespace_text IF NOT EXISTS FOR (n:Cue) ON (n.namespace, n.text);
CREATE INDEX tag_namespace_cue_text IF NOT EXISTS FOR (n:Tag) ON (n.namespace, n.cue_id, n.text);
CREATE INDEX episode_namespace_source_id IF NOT EXISTS FOR (n:Episode) ON (n.namespace, n.source_id);
