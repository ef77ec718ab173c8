package org.connectpaimon.gen;

import static org.connectpaimon.gen.PkTables.I;
import static org.connectpaimon.gen.PkTables.UB;
import static org.connectpaimon.gen.PkTables.UA;
import static org.connectpaimon.gen.PkTables.D;
import static org.connectpaimon.gen.PkTables.r;
import static org.connectpaimon.gen.PkTables.s;

import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * Tables whose changelog outlives their snapshots ("long-lived changelog"): snapshots are
 * retained 2 at most, changelogs 100 (min 2: Java 1.3.1 fails a commit whose changelog.num-retained.min
 * exceeds the snapshots written so far), so Java's commit-time expiry moves every older snapshot to
 * changelog/changelog-N. A stream from snapshot 1 must then read those changelog files (Java's
 * NextSnapshotFetcher), not start at the earliest remaining snapshot.
 */
final class ChangelogTables {
    private ChangelogTables() {}

    /** Deduplicate table with the given changelog producer and decoupled retention. */
    static void longLived(PkOracle g, String name, String producer) throws Exception {
        Schema schema = Schema.newBuilder().column("id", DataTypes.INT()).column("v", DataTypes.STRING())
                .column("n", DataTypes.BIGINT()).primaryKey("id").option("bucket", "1")
                .option("changelog-producer", producer)
                .option("snapshot.num-retained.min", "1").option("snapshot.num-retained.max", "2")
                .option("changelog.num-retained.min", "2").option("changelog.num-retained.max", "100")
                .build();
        try (PkWriter w = g.create(name, schema)) {
            w.commit(r(I, 1, s("a1"), 10L), r(I, 2, s("a2"), 20L), r(I, 3, s("a3"), 30L));
            w.commit(r(I, 1, s("b1"), 11L), r(UB, 2, s("a2"), 20L), r(UA, 2, s("b2"), 21L), r(I, 4, s("b4"), 40L));
            w.commit(r(D, 3, s("a3"), 30L), r(I, 5, s("c5"), 50L));
            w.compact(true);
            w.commit(r(I, 6, s("d6"), 60L), r(I, 1, s("d1"), 12L));
            w.commit(r(D, 4, s("b4"), 40L), r(I, 7, s("e7"), 70L));
            w.compact(false);
            w.commit(r(I, 8, s("f8"), 80L), r(UB, 5, s("c5"), 50L), r(UA, 5, s("f5"), 51L));
        }
        g.dumpAll(name);
    }
}
