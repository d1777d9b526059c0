// V0030 state memory (EMIR2 SEMG): keyword search over events and states, and range indexes
// for chain ordering and time-range retrieval.
CREATE FULLTEXT INDEX event_text IF NOT EXISTS FOR (n:Event) ON EACH [n.text, n.speaker]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX state_content IF NOT EXISTS FOR (n:State) ON EACH [n.content]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE INDEX event_sort_key IF NOT EXISTS FOR (n:Event) ON (n.sort_key);
CREATE INDEX event_occurred_at IF NOT EXISTS FOR (n:Event) ON (n.occurred_at);
CREATE INDEX state_valid_from IF NOT EXISTS FOR (n:State) ON (n.valid_from);
CREATE INDEX topic_conversation IF NOT EXISTS FOR (n:Topic) ON (n.conversation);
