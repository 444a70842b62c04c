-- One database per service instance, as in the local cluster (docs/architecture.md "Services").
CREATE DATABASE config;
CREATE DATABASE shard1;
CREATE DATABASE shard2;
CREATE DATABASE shard3;
CREATE DATABASE resharding;
CREATE DATABASE sessions;
