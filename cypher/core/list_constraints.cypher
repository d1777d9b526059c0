// description: every uniqueness constraint with its label and properties
// params: none
// returns: name, labels, properties
// mode: read
SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties
WHERE type = 'UNIQUENESS'
RETURN name, labelsOrTypes AS labels, properties
