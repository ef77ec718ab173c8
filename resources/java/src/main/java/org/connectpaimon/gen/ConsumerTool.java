package org.connectpaimon.gen;

import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Drives Java Paimon's own ConsumerManager over a LocalFileIO so the Go consumer package can be
 * checked against the reference implementation (paimon/consumer interop test).
 *
 * <pre>
 * ConsumerTool &lt;table&gt; &lt;branch|""&gt; write &lt;id&gt; &lt;n&gt;
 * ConsumerTool &lt;table&gt; &lt;branch|""&gt; read          -> {"consumers":{..},"min":n|null,"ids":[..],"each":{..}}
 * ConsumerTool &lt;table&gt; &lt;branch|""&gt; clear &lt;incl&gt; [&lt;excl&gt;]
 * ConsumerTool &lt;table&gt; &lt;branch|""&gt; expire &lt;epochMillis&gt;
 * ConsumerTool &lt;table&gt; &lt;branch|""&gt; delete &lt;id&gt;
 * </pre>
 */
public final class ConsumerTool {

    private ConsumerTool() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ConsumerTool <table> <branch> <op> [args...]");
            System.exit(2);
        }
        ConsumerManager m =
                new ConsumerManager(LocalFileIO.create(), new Path(args[0]), args[1]);
        switch (args[2]) {
            case "write":
                m.resetConsumer(args[3], new Consumer(Long.parseLong(args[4])));
                break;
            case "delete":
                m.deleteConsumer(args[3]);
                break;
            case "read":
                System.out.println(read(m));
                break;
            case "clear":
                Pattern excl =
                        args.length > 4 && !args[4].isEmpty() ? Pattern.compile(args[4]) : null;
                m.clearConsumers(Pattern.compile(args[3]), excl);
                break;
            case "expire":
                // Java's expire compares against the mtime converted with the default zone, so
                // the cut-off is converted the same way.
                LocalDateTime cut =
                        LocalDateTime.ofInstant(
                                Instant.ofEpochMilli(Long.parseLong(args[3])),
                                ZoneId.systemDefault());
                m.expire(cut);
                break;
            default:
                System.err.println("unknown op " + args[2]);
                System.exit(2);
        }
    }

    private static String read(ConsumerManager m) throws Exception {
        Map<String, Long> consumers = new TreeMap<>(m.consumers());
        OptionalLong min = m.minNextSnapshot();
        List<String> ids = new ArrayList<>(m.listAllIds());
        Collections.sort(ids);
        StringBuilder sb = new StringBuilder("{\"consumers\":{");
        appendMap(sb, consumers);
        sb.append("},\"min\":").append(min.isPresent() ? Long.toString(min.getAsLong()) : "null");
        sb.append(",\"ids\":[");
        for (int i = 0; i < ids.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            quote(sb, ids.get(i));
        }
        sb.append("],\"each\":{");
        Map<String, Long> each = new TreeMap<>();
        for (String id : ids) {
            Optional<Consumer> c = m.consumer(id);
            each.put(id, c.map(Consumer::nextSnapshot).orElse(null));
        }
        appendMap(sb, each);
        return sb.append("}}").toString();
    }

    private static void appendMap(StringBuilder sb, Map<String, Long> map) {
        boolean first = true;
        for (Map.Entry<String, Long> e : map.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            quote(sb, e.getKey());
            sb.append(':').append(e.getValue() == null ? "null" : e.getValue().toString());
        }
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
