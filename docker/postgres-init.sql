-- One database per service instance, as in the local cluster (DESIGN.md §1).
CREATE DATABASE config;
CREATE DATABASE shard1;
CREATE DATABASE shard2;
CREATE DATABASE shard3;
CREATE DATABASE sessions;
