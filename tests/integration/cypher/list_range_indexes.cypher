// description: every range index with its label and properties (test only)
// params: none
// returns: name, labels, properties
// mode: read
SHOW RANGE INDEXES YIELD name, labelsOrTypes, properties
RETURN name, labelsOrTypes AS labels, properties
