// V0080 associative memory: cues and tags are matched by text (question cues to Cue.text, tags by
// their analyzed terms) and carry no vector; their vector indexes go. A cue's specificity reads its
// `contents` counter (set at ingest), not a traversal.
DROP INDEX cue_embedding IF EXISTS;
DROP INDEX tag_embedding IF EXISTS;
