// V0001 baseline: uniqueness of id and a namespace index for every graphmem label,
// and a cosine vector index on `embedding` for every embedded label.
// Parameter: $vector_dimension (GRAPHMEM_VECTOR_DIMENSION, default 384).
// Forward-only: never edit this file once applied; add V0002... instead.

CREATE CONSTRAINT query_id IF NOT EXISTS FOR (n:Query) REQUIRE n.id IS UNIQUE;
CREATE INDEX query_namespace IF NOT EXISTS FOR (n:Query) ON (n.namespace);
CREATE CONSTRAINT step_id IF NOT EXISTS FOR (n:Step) REQUIRE n.id IS UNIQUE;
CREATE INDEX step_namespace IF NOT EXISTS FOR (n:Step) ON (n.namespace);
CREATE CONSTRAINT insight_id IF NOT EXISTS FOR (n:Insight) REQUIRE n.id IS UNIQUE;
CREATE INDEX insight_namespace IF NOT EXISTS FOR (n:Insight) ON (n.namespace);
CREATE CONSTRAINT controller_decision_id IF NOT EXISTS FOR (n:ControllerDecision) REQUIRE n.id IS UNIQUE;
CREATE INDEX controller_decision_namespace IF NOT EXISTS FOR (n:ControllerDecision) ON (n.namespace);
CREATE CONSTRAINT task_id IF NOT EXISTS FOR (n:Task) REQUIRE n.id IS UNIQUE;
CREATE INDEX task_namespace IF NOT EXISTS FOR (n:Task) ON (n.namespace);
CREATE CONSTRAINT decision_graph_id IF NOT EXISTS FOR (n:DecisionGraph) REQUIRE n.id IS UNIQUE;
CREATE INDEX decision_graph_namespace IF NOT EXISTS FOR (n:DecisionGraph) ON (n.namespace);
CREATE CONSTRAINT action_id IF NOT EXISTS FOR (n:Action) REQUIRE n.id IS UNIQUE;
CREATE INDEX action_namespace IF NOT EXISTS FOR (n:Action) ON (n.namespace);
CREATE CONSTRAINT edit_operation_id IF NOT EXISTS FOR (n:EditOperation) REQUIRE n.id IS UNIQUE;
CREATE INDEX edit_operation_namespace IF NOT EXISTS FOR (n:EditOperation) ON (n.namespace);
CREATE CONSTRAINT topic_id IF NOT EXISTS FOR (n:Topic) REQUIRE n.id IS UNIQUE;
CREATE INDEX topic_namespace IF NOT EXISTS FOR (n:Topic) ON (n.namespace);
CREATE CONSTRAINT event_id IF NOT EXISTS FOR (n:Event) REQUIRE n.id IS UNIQUE;
CREATE INDEX event_namespace IF NOT EXISTS FOR (n:Event) ON (n.namespace);
CREATE CONSTRAINT state_id IF NOT EXISTS FOR (n:State) REQUIRE n.id IS UNIQUE;
CREATE INDEX state_namespace IF NOT EXISTS FOR (n:State) ON (n.namespace);
CREATE CONSTRAINT cue_id IF NOT EXISTS FOR (n:Cue) REQUIRE n.id IS UNIQUE;
CREATE INDEX cue_namespace IF NOT EXISTS FOR (n:Cue) ON (n.namespace);
CREATE CONSTRAINT tag_id IF NOT EXISTS FOR (n:Tag) REQUIRE n.id IS UNIQUE;
CREATE INDEX tag_namespace IF NOT EXISTS FOR (n:Tag) ON (n.namespace);
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (n:Episode) REQUIRE n.id IS UNIQUE;
CREATE INDEX episode_namespace IF NOT EXISTS FOR (n:Episode) ON (n.namespace);
CREATE CONSTRAINT semantic_unit_id IF NOT EXISTS FOR (n:SemanticUnit) REQUIRE n.id IS UNIQUE;
CREATE INDEX semantic_unit_namespace IF NOT EXISTS FOR (n:SemanticUnit) ON (n.namespace);
CREATE CONSTRAINT theme_id IF NOT EXISTS FOR (n:Theme) REQUIRE n.id IS UNIQUE;
CREATE INDEX theme_namespace IF NOT EXISTS FOR (n:Theme) ON (n.namespace);
CREATE VECTOR INDEX query_embedding IF NOT EXISTS FOR (n:Query) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX insight_embedding IF NOT EXISTS FOR (n:Insight) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX task_embedding IF NOT EXISTS FOR (n:Task) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX topic_embedding IF NOT EXISTS FOR (n:Topic) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX event_embedding IF NOT EXISTS FOR (n:Event) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX state_embedding IF NOT EXISTS FOR (n:State) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX cue_embedding IF NOT EXISTS FOR (n:Cue) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX tag_embedding IF NOT EXISTS FOR (n:Tag) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (n:Episode) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX semantic_unit_embedding IF NOT EXISTS FOR (n:SemanticUnit) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX theme_embedding IF NOT EXISTS FOR (n:Theme) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $vector_dimension, `vector.similarity_function`: 'cosine'}};
