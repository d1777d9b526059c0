// V0061 state memory: recall reads events through the retrieval engine's per-namespace full-text
// index (unit_lexical_event, V0050) and states through their topics; the english-analyzer
// full-text indexes of V0030 have no reader left and every write paid for them.
DROP INDEX event_text IF EXISTS;
DROP INDEX state_content IF EXISTS;
