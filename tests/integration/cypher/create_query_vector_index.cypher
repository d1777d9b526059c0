// description: test-only: a vector index on :Query(embedding) under another name than graphmem's (an index another application created first)
// params: name, dimension
// returns: none
// mode: write
CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Query) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}}
