package dev.shardstore.support.security;

import dev.shardstore.contracts.error.CommandException;
import dev.shardstore.contracts.error.ErrorCode;

/**
 * MongoDB's privilege actions (MongoDB manual "Privilege Actions"), spelled as MongoDB spells them so that a
 * constant's {@link #name()} is the action's name in {@code createRole}'s privileges, {@code rolesInfo} and error
 * messages. Only the actions some command of this cluster needs, or some built-in role grants, are here.
 */
@SuppressWarnings("java:S115") // MongoDB's spellings, not Java's constant convention
public enum ActionType {
    // query and write
    find, insert, update, remove, bypassDocumentValidation, changeStream, killCursors, listCursors,
    // database management
    createCollection, dropCollection, createIndex, dropIndex, collMod, convertToCapped, dropDatabase,
    renameCollectionSameDB, listCollections, listIndexes, collStats, dbStats, dbHash, validate, enableProfiler,
    planCacheRead, planCacheWrite, reIndex, compact,
    // user and role management
    changeCustomData, changeOwnCustomData, changeOwnPassword, changePassword, createRole, createUser, dropRole,
    dropUser, grantRole, revokeRole, setAuthenticationRestriction, viewRole, viewUser,
    // sharding
    addShard, removeShard, listShards, enableSharding, moveChunk, splitChunk, splitVector, flushRouterConfig,
    getShardMap, cleanupOrphaned, refineCollectionShardKey, reshardCollection, checkMetadataConsistency,
    shardedDataDistribution,
    // deployment and diagnostics
    serverStatus, getParameter, setParameter, getCmdLineOpts, getLog, hostInfo, connPoolStats, netstat, top,
    inprog, killop, listDatabases, listSessions, killAnySession, impersonate, shutdown, logRotate,
    applicationMessage, advanceClusterTime,
    // cluster members only (MongoDB's internal action: __system alone holds it)
    internal;

    /**
     * The action named {@code name}.
     *
     * @throws CommandException BadValue (2) for a name MongoDB does not define here ("Unrecognized action privilege string")
     */
    public static ActionType of(String name) {
        try {
            return valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new CommandException(ErrorCode.BadValue, "Unrecognized action privilege string: " + name);
        }
    }
}
