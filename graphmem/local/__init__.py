"""Helpers of the local launcher (:mod:`graphmem.neo4j_local`): port picking and JDK/version
selection."""
