/**
 * GraphQL: each service's subgraph, generated from its declarations and read
 * through the REST engine's own list machinery (issue 26, decision 033).
 * The gateway composes the subgraphs.
 */
export { mountGraphql } from './endpoint';
export { byIdField, rootName, typeName } from './names';
