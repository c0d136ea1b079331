// Starts the infrastructure the service needs (PostgreSQL, RabbitMQ) for the
// quick start and for tests: an external URL if configured, else Docker via
// testcontainers if an engine answers, else local server processes.
export { startPostgres, type PostgresOptions, type RunningPostgres } from './postgres';
export { startRabbitMQ, amqpHandshake, type RabbitOptions, type RunningRabbit } from './rabbitmq';
export { dockerAvailable } from './docker';
export { freePort } from './net';
