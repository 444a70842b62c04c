package dev.shardstore.cluster.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape of the code (docs/architecture.md "Modules and their dependency rules"), checked on the compiled main
 * classes of every module: the services never depend on each other, each service's commands sit above its write and
 * read paths and those above storage, only the shard's write path opens a unit of work for a client write, and no
 * field anywhere holds a thread-local (operation state travels in the {@code OperationContext}).
 *
 * <p>The classes come from each module's {@code target/classes}, which the reactor has built before this module's tests
 * run (local-cluster is the last module). A module whose classes are missing fails the test rather than passing it.
 */
class ArchitectureTest {
    private static final List<String> MODULES = List.of("shared-contracts", "transport", "query-engine", "service-support",
            "embedded-infra", "config-service", "shard-service", "router-service", "balancer-service", "session-service",
            "resharding-service", "console-service", "local-cluster");

    private static final String UNIT_OF_WORK = "dev.shardstore.shard.storage.WriteUnitOfWork";
    private static final String OPERATION_CONTEXT = "dev.shardstore.support.operation.OperationContext";

    private static JavaClasses classes;

    @BeforeAll
    static void importEveryModule() {
        Path root = Path.of("").toAbsolutePath().getParent();
        ClassFileImporter importer = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS);
        Path[] dirs = MODULES.stream().map(m -> root.resolve(m).resolve("target/classes")).toArray(Path[]::new);
        for (Path dir : dirs) {
            assertThat(dir).as("compiled classes of %s (build the reactor first)", dir.getParent().getParent().getFileName())
                    .isDirectory();
        }
        classes = importer.importPaths(dirs);
        assertThat(classes.stream().filter(c -> c.getPackageName().startsWith("dev.shardstore.shard.")).count())
                .as("the shard's classes were imported").isGreaterThan(100);
    }

    @Test
    void noServiceDependsOnAnother() {
        List<String> services = List.of("config", "shard", "router", "balancer", "session", "resharding", "console", "cluster");
        for (String service : services) {
            String[] others = services.stream().filter(s -> !s.equals(service)).map(s -> "dev.shardstore." + s + "..").toArray(String[]::new);
            rule(noClasses().that().resideInAPackage("dev.shardstore." + service + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(others)
                    .because("each service is its own process: services talk over the transport, never through each other's code"));
        }
    }

    @Test
    void theConsoleReachesTheClusterOnlyThroughItsPublicApi() {
        rule(noClasses().that().resideInAPackage("dev.shardstore.console..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.shardstore.transport..", "dev.shardstore.support..",
                        "java.sql..", "javax.sql..", "org.postgresql..", "org.apache.kafka..")
                .because("the console is a client: the router's REST API and the services' Actuator endpoints, no internal "
                        + "command, database or broker (docs/architecture.md \"The operator's console\")"));
    }

    @Test
    void shardCommandsSitAboveTheWriteAndReadPathsAndThoseAboveStorage() {
        rule(noClasses().that().resideInAnyPackage("dev.shardstore.shard.write..", "dev.shardstore.shard.cursor..",
                        "dev.shardstore.shard.plan..", "dev.shardstore.shard.storage..", "dev.shardstore.shard.versioning..",
                        "dev.shardstore.shard.transaction..")
                .should().dependOnClassesThat().resideInAPackage("dev.shardstore.shard.command..")
                .because("command handlers parse, call the write or read path and shape the reply; nothing below calls back up"));
        rule(noClasses().that().resideInAPackage("dev.shardstore.shard.storage..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.shardstore.shard.write..", "dev.shardstore.shard.cursor..",
                        "dev.shardstore.shard.transaction..")
                .because("storage is the bottom layer of the write and read paths"));
        rule(noClasses().that().resideInAPackage("dev.shardstore.shard.cursor..")
                .should().dependOnClassesThat().resideInAPackage("dev.shardstore.shard.write..")
                .because("the read path never writes"));
    }

    @Test
    void routerCommandsSitAboveTheWriteAndReadPathsAndThoseAboveRouting() {
        rule(noClasses().that().resideInAnyPackage("dev.shardstore.router.write..", "dev.shardstore.router.query..",
                        "dev.shardstore.router.cursor..", "dev.shardstore.router.routing..")
                .should().dependOnClassesThat().resideInAPackage("dev.shardstore.router.command..")
                .because("command handlers parse, call the write or read path and shape the reply; nothing below calls back up"));
        rule(noClasses().that().resideInAPackage("dev.shardstore.router.routing..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.shardstore.router.write..", "dev.shardstore.router.query..",
                        "dev.shardstore.router.cursor..")
                .because("routing is the bottom layer of the router's write and read paths"));
    }

    @Test
    void onlyTheShardsWritePathOpensAUnitOfWorkForAClientWrite() {
        rule(noClasses().that().resideOutsideOfPackages("dev.shardstore.shard.write..", "dev.shardstore.shard.storage..")
                // the time-series TTL monitor is the shard's own client-like delete of expired buckets
                .and(not(simpleName("TimeseriesTtlMonitor")))
                .should().callMethod(UNIT_OF_WORK, "write", OPERATION_CONTEXT, "java.util.function.Function")
                .orShould().callMethod(UNIT_OF_WORK, "asStatement", OPERATION_CONTEXT, "dev.shardstore.shard.storage.RetryableStatement",
                        "java.util.function.Function")
                .orShould().callMethod(UNIT_OF_WORK, "savepoint", OPERATION_CONTEXT, "java.util.function.Supplier")
                .because("the write path (docs/architecture.md \"The life of a routed write\") is the one place that begins and"
                        + " commits a PostgreSQL transaction for a client write"));
        rule(noClasses().that().resideOutsideOfPackages("dev.shardstore.shard.migration..", "dev.shardstore.shard.moveprimary..", "dev.shardstore.shard.resharding..",
                        "dev.shardstore.shard.storage..")
                .should().callMethod(UNIT_OF_WORK, "writeFromMigrate", OPERATION_CONTEXT, "java.util.function.Function")
                .because("fromMigrate writes are chunk migration's, range deletion's, movePrimary's and resharding's alone"));
        rule(noClasses().that().resideOutsideOfPackages("dev.shardstore.shard.transaction..", "dev.shardstore.shard.storage..",
                        "dev.shardstore.shard.resharding..")
                .should().callMethod(UNIT_OF_WORK, "beginTransaction")
                .orShould().callMethod(UNIT_OF_WORK, "commitTransaction", "dev.shardstore.shard.storage.TransactionResources",
                        "dev.shardstore.contracts.session.LogicalSessionId", "long")
                .orShould().callMethod(UNIT_OF_WORK, "abortTransaction", "dev.shardstore.shard.storage.TransactionResources")
                .because("a multi-document transaction begins, commits and aborts only through its participant, the one"
                        + " writer of its state (shard.transaction.TransactionParticipant); the resharding donor's clone"
                        + " (ReshardingCloneSource) opens one only to read a page at cloneTimestamp, and rolls it back"));
    }

    @Test
    void noFieldHoldsAThreadLocal() {
        rule(noFields().that().areDeclaredInClassesThat().resideInAPackage("dev.shardstore..")
                .should().haveRawType(assignableTo(ThreadLocal.class))
                .because("operation state travels in the OperationContext passed as a parameter: a transaction's statements"
                        + " run on different threads, and one thread applies many operations"));
    }

    private static void rule(ArchRule rule) {
        rule.check(classes);
    }
}
