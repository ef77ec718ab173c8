package org.connectpaimon.gen;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.rest.RESTCatalog;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.RESTToken;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.responses.ConfigResponse;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Starts Java Paimon's own REST catalog server (RESTCatalogServer from paimon-core's test-jar,
 * backed by a FileSystemCatalog over a local warehouse) on a loopback port, for the Go REST
 * catalog tests. Prints "REST_URI <uri>" and "READY", then takes commands on stdin, one per
 * line, each answered "OK ..." or "ERR ..." on stdout; it stops when stdin ends. Writes go
 * through Java's RESTCatalog client against this same server (the server keeps its table
 * registry in memory, so every table must be created through it).
 *
 * <pre>
 *   --dir DIR --warehouse NAME --token TOKEN [--data-token true|false]
 *   [--gen javagen|javapk --expected DIR --cases FILE [--tables a,b]]  run a generator through REST
 * commands:
 *   create-append db.t            append table (id INT, name STRING), bucket -1
 *   create-pk db.t                primary-key table (id INT pk, name STRING), bucket 1
 *   write db.t FROM TO            one commit of rows id FROM..TO-1, name "r"+id; answers OK snapshot-id
 *   rotate-token db.t TTL_MS      vend a fresh token (new akId) expiring TTL_MS after issue, re-issued
 *                                 every TTL_MS/4, so a client that refreshes early always gets a new one
 *   path db.t                     OK table-path
 *   consumer db.t ID              OK next-snapshot (or "none") as Java's ConsumerManager reads it
 *                                 through the table's FileIO at the table's location
 * </pre>
 */
public final class RestServer {

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) a.put(args[i], args[i + 1]);
        if (!a.containsKey("--dir") || !a.containsKey("--warehouse") || !a.containsKey("--token")) {
            throw new IllegalArgumentException("usage: --dir DIR --warehouse NAME --token TOKEN [--data-token B] [--gen javagen|javapk ...]");
        }
        Path dir = Paths.get(a.get("--dir")).toAbsolutePath();
        Files.createDirectories(dir);
        String warehouse = a.get("--warehouse");
        String token = a.get("--token");
        Map<String, String> defaults = new HashMap<>();
        defaults.put("prefix", "paimon");
        defaults.put("warehouse", warehouse);
        defaults.put("data-token.enabled", a.getOrDefault("--data-token", "false"));
        ConfigResponse config = new ConfigResponse(defaults, new HashMap<>());
        RESTCatalogServer server = new RESTCatalogServer(dir.toString(), new BearTokenAuthProvider(token), config, warehouse);
        server.start();
        String uri = server.getUrl();

        Options opts = new Options();
        opts.set("metastore", "rest");
        opts.set("uri", uri);
        opts.set("warehouse", warehouse);
        opts.set("token.provider", "bear");
        opts.set("token", token);
        ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "token-rotation");
            t.setDaemon(true);
            return t;
        });
        AtomicLong tokenSeq = new AtomicLong();
        try (Catalog cat = new RESTCatalog(CatalogContext.create(opts))) {
            if (a.containsKey("--gen")) {
                String[] genArgs = {"--expected", a.get("--expected"), "--cases", a.get("--cases")};
                if (a.containsKey("--tables")) {
                    genArgs = new String[] {"--expected", a.get("--expected"), "--cases", a.get("--cases"), "--tables", a.get("--tables")};
                }
                switch (a.get("--gen")) {
                    case "javagen": JavaGen.generate(cat, genArgs); break;
                    case "javapk": JavaPkGen.generate(cat, genArgs); break;
                    default: throw new IllegalArgumentException("unknown --gen " + a.get("--gen"));
                }
            }
            System.out.println("REST_URI " + uri);
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                line = line.trim();
                if (line.isEmpty()) continue;
                String[] f = line.split("\\s+");
                try {
                    System.out.println("OK " + command(cat, server, sched, tokenSeq, f));
                } catch (Exception e) {
                    System.out.println("ERR " + (e.getMessage() == null ? e.toString() : e.getMessage()).replace('\n', ' '));
                }
                System.out.flush();
            }
        } finally {
            sched.shutdownNow();
            server.shutdown();
        }
    }

    private static String command(Catalog cat, RESTCatalogServer server, ScheduledExecutorService sched,
                                  AtomicLong tokenSeq, String[] f) throws Exception {
        switch (f[0]) {
            case "create-append":
            case "create-pk": {
                Identifier id = Identifier.fromString(f[1]);
                cat.createDatabase(id.getDatabaseName(), true);
                Schema.Builder b = Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("name", DataTypes.STRING());
                if (f[0].equals("create-pk")) b.primaryKey("id").option("bucket", "1");
                else b.option("bucket", "-1");
                cat.createTable(id, b.build(), false);
                return f[1];
            }
            case "write": {
                Table t = cat.getTable(Identifier.fromString(f[1]));
                int from = Integer.parseInt(f[2]), to = Integer.parseInt(f[3]);
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
                    for (int i = from; i < to; i++) w.write(GenericRow.of(i, BinaryString.fromString("r" + i)));
                    c.commit(w.prepareCommit());
                }
                return String.valueOf(cat.getTable(Identifier.fromString(f[1])).latestSnapshot().get().id());
            }
            case "rotate-token": {
                Identifier id = Identifier.fromString(f[1]);
                long ttl = Long.parseLong(f[2]);
                Runnable issue = () -> {
                    long n = tokenSeq.incrementAndGet();
                    Map<String, String> tok = new HashMap<>();
                    tok.put("akId", "akId" + n);
                    tok.put("akSecret", "akSecret" + n);
                    server.setDataToken(id, new RESTToken(tok, System.currentTimeMillis() + ttl));
                };
                issue.run();
                sched.scheduleAtFixedRate(issue, Math.max(1, ttl / 4), Math.max(1, ttl / 4), TimeUnit.MILLISECONDS);
                return f[1];
            }
            case "path":
                return cat.getTable(Identifier.fromString(f[1])).options().get("path");
            case "consumer": {
                FileStoreTable t = (FileStoreTable) cat.getTable(Identifier.fromString(f[1]));
                return new ConsumerManager(t.fileIO(), t.location())
                        .consumer(f[2]).map(c -> String.valueOf(c.nextSnapshot())).orElse("none");
            }
            default:
                throw new IllegalArgumentException("unknown command " + f[0]);
        }
    }
}
