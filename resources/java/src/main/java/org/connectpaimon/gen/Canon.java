package org.connectpaimon.gen;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimestampType;

/**
 * Canonical JSON of Java Paimon rows (docs/ARCHITECTURE.md), the Java twin of
 * resources/pygen/canon.py. FLOAT/DOUBLE are deliberately unsupported: Java 17's
 * Double.toString is not always the shortest round-trip spelling Python's repr uses, so Java
 * tables carry no floating-point columns (pypaimon covers them).
 */
final class Canon {
    private Canon() {}

    static String row(InternalRow row, RowType type) {
        Map<String, String> sorted = new TreeMap<>(Canon::codePointCompare);
        List<DataField> fields = type.getFields();
        for (int i = 0; i < fields.size(); i++) {
            sorted.put(fields.get(i).name(), value(row, i, fields.get(i).type()));
        }
        StringBuilder sb = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            if (!first) sb.append(',');
            first = false;
            sb.append(str(e.getKey())).append(':').append(e.getValue());
        }
        return sb.append('}').toString();
    }

    private static String value(InternalRow r, int i, DataType t) {
        if (r.isNullAt(i)) return "null";
        switch (t.getTypeRoot()) {
            case BOOLEAN: return Boolean.toString(r.getBoolean(i));
            case TINYINT: return Byte.toString(r.getByte(i));
            case SMALLINT: return Short.toString(r.getShort(i));
            case INTEGER: return Integer.toString(r.getInt(i));
            case BIGINT: return Long.toString(r.getLong(i));
            case FLOAT: return str(dbl(r.getFloat(i)));
            case DOUBLE: return str(dbl(r.getDouble(i)));
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                return str(r.getDecimal(i, d.getPrecision(), d.getScale()).toBigDecimal().toPlainString());
            }
            case CHAR: case VARCHAR: return str(r.getString(i).toString());
            case BINARY: case VARBINARY: return str("b64:" + Base64.getEncoder().encodeToString(r.getBinary(i)));
            case DATE: return str(LocalDate.ofEpochDay(r.getInt(i)).toString());
            case TIME_WITHOUT_TIME_ZONE: {
                int ms = r.getInt(i);
                return str(String.format("%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000));
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return str(ts(r.getTimestamp(i, ((TimestampType) t).getPrecision()), false));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return str(ts(r.getTimestamp(i, ((LocalZonedTimestampType) t).getPrecision()), true));
            case ARRAY: return array(r.getArray(i), ((ArrayType) t).getElementType());
            case MAP: {
                MapType m = (MapType) t;
                return map(r.getMap(i), m.getKeyType(), m.getValueType());
            }
            case MULTISET:
                return map(r.getMap(i), ((MultisetType) t).getElementType(), DataTypes.INT());
            case ROW: {
                RowType rt = (RowType) t;
                return row(r.getRow(i, rt.getFieldCount()), rt);
            }
            default: throw new IllegalArgumentException("no canonical encoding for " + t);
        }
    }

    /**
     * Spells v like Python's repr(float), as the Go side's canon.Float does: shortest round-trip
     * digits (Double.toString's, which JDK 17 leaves non-shortest for a few rare values: those
     * would show up as a difference, never pass), positional for decimal exponents in [-4, 16)
     * with at least one fraction digit, otherwise d.ddde±XX.
     */
    static String dbl(double v) {
        if (Double.isNaN(v)) return "NaN";
        if (Double.isInfinite(v)) return v > 0 ? "Infinity" : "-Infinity";
        if (v == 0) return (1 / v < 0) ? "-0.0" : "0.0";
        java.math.BigDecimal b = new java.math.BigDecimal(Double.toString(Math.abs(v))).stripTrailingZeros();
        String digits = b.unscaledValue().toString();
        int exp = digits.length() - 1 - b.scale();
        String sign = v < 0 ? "-" : "";
        if (exp < -4 || exp >= 16) {
            String m = digits.substring(0, 1) + (digits.length() > 1 ? "." + digits.substring(1) : "");
            return sign + m + "e" + (exp < 0 ? "-" : "+") + String.format("%02d", Math.abs(exp));
        }
        if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
        if (digits.length() <= exp + 1) return sign + digits + "0".repeat(exp + 1 - digits.length()) + ".0";
        return sign + digits.substring(0, exp + 1) + "." + digits.substring(exp + 1);
    }

    private static String array(InternalArray a, DataType et) {
        StringBuilder sb = new StringBuilder("[");
        for (int k = 0; k < a.size(); k++) {
            if (k > 0) sb.append(',');
            sb.append(value(arrayRow(a, k), 0, et));
        }
        return sb.append(']').toString();
    }

    private static String map(InternalMap m, DataType kt, DataType vt) {
        List<String[]> pairs = new ArrayList<>();
        for (int k = 0; k < m.size(); k++) {
            pairs.add(new String[] {value(arrayRow(m.keyArray(), k), 0, kt), value(arrayRow(m.valueArray(), k), 0, vt)});
        }
        pairs.sort((x, y) -> codePointCompare(x[0], y[0]));
        StringBuilder sb = new StringBuilder("[");
        for (int k = 0; k < pairs.size(); k++) {
            if (k > 0) sb.append(',');
            sb.append('[').append(pairs.get(k)[0]).append(',').append(pairs.get(k)[1]).append(']');
        }
        return sb.append(']').toString();
    }

    static String ts(Timestamp t, boolean utc) {
        LocalDateTime l = t.toLocalDateTime();
        return String.format("%04d-%02d-%02dT%02d:%02d:%02d.%09d%s", l.getYear(), l.getMonthValue(), l.getDayOfMonth(),
                l.getHour(), l.getMinute(), l.getSecond(), l.getNano(), utc ? "Z" : "");
    }

    /** Python json.dumps(ensure_ascii=False) quoting. */
    static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** Code-point order, which is what Python's sort and Go's byte order agree on. */
    static int codePointCompare(String a, String b) {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i), cb = b.codePointAt(j);
            if (ca != cb) return Integer.compare(ca, cb);
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    /**
     * One element of an array seen as a one-field row, so value() handles both. A proxy rather
     * than a class: InternalRow gains methods between Paimon versions (getVariant in 1.x), and
     * this file is compiled against every version of the writer matrix (pom.xml, profile
     * paimon-legacy). Every getX(pos, ...) becomes the array's getX(k, ...).
     */
    private static InternalRow arrayRow(InternalArray a, int k) {
        return (InternalRow) java.lang.reflect.Proxy.newProxyInstance(Canon.class.getClassLoader(),
                new Class<?>[] {InternalRow.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "getFieldCount": return 1;
                        case "getRowKind": return org.apache.paimon.types.RowKind.INSERT;
                        case "isNullAt": return a.isNullAt(k);
                        case "toString": return "element " + k + " of " + a;
                        case "hashCode": return System.identityHashCode(proxy);
                        case "equals": return proxy == args[0];
                        default: break;
                    }
                    if (args == null || args.length == 0 || m.getParameterTypes()[0] != int.class) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    Object[] shifted = args.clone();
                    shifted[0] = k;
                    try {
                        return InternalArray.class.getMethod(m.getName(), m.getParameterTypes()).invoke(a, shifted);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
