// description: connectivity check and server version
// params: none
// returns: version, edition
// mode: read
CALL dbms.components() YIELD versions, edition
RETURN versions[0] AS version, edition
