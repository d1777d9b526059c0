"""Graph layer: driver, Cypher registry, the one query runner, migrations, schema."""
