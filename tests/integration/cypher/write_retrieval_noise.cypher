// description: test-only: create $count Event retrieval units in one namespace with 8 random words from $words as lexical terms and embedding = unit($center + $spread * random vector), drawn inside Neo4j (foreign tenants that share a tenant's words and crowd the global indexes)
// params: namespace, ns_token, start, count, words, center, spread
// returns: created
// mode: write
UNWIND range($start, $start + $count - 1) AS i
WITH i, [k IN range(1, 8) | $words[toInteger(rand() * size($words))]] AS terms,
     [x IN $center | rand() - 0.5] AS r
WITH i, terms, r, sqrt(reduce(s = 0.0, x IN r | s + x * x)) AS rn
WITH i, terms, [j IN range(0, size(r) - 1) | $center[j] + $spread * r[j] / rn] AS v
WITH i, terms, v, sqrt(reduce(s = 0.0, x IN v | s + x * x)) AS vn
CREATE (u:Event {id: $namespace + ':noise:' + toString(i), namespace: $namespace,
                 text: reduce(t = '', w IN terms | t + ' ' + w), source_ids: [],
                 lexical_terms: substring(reduce(t = '', w IN terms | t + ' ' + w), 1),
                 lexical_text: reduce(t = '', w IN terms | t + ' ' + w), lexical_length: size(terms),
                 ns_token: $ns_token, is_cue: false, is_smalltalk: false,
                 embedding: [x IN v | x / vn]})
RETURN count(u) AS created
