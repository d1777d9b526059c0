// description: test-only toy memory: the uniqueness constraint on Note.id that docs/memories.md asks of a plugin (a doctor repair seeks notes by id through it); idempotent
// params: none
// returns: none
// mode: write
CREATE CONSTRAINT toy_note_id IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE
