"""Canonical JSON encoding of Arrow rows, shared by every oracle case.

This is the Python half of the contract in docs/ARCHITECTURE.md ("Canonical JSON");
the Go half is internal/testenv/canon. Both encode from the Arrow *type* and the raw
physical value (epoch units, unscaled decimals) rather than from Python objects, because
Python's datetime stops at microseconds and pandas/pyarrow conversions differ by version.
"""

import base64
import datetime
import json
import math

import pyarrow as pa
import pyarrow.types as pat

_EPOCH_DATE = datetime.date(1970, 1, 1)
_UNIT_NANOS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def canon_float(x):
    """repr(float) spelling; float32 values are widened first, as Go does."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)


def canon_decimal(unscaled, scale):
    """Plain notation with exactly `scale` fraction digits."""
    neg = unscaled < 0
    digits = str(abs(unscaled))
    if scale > 0:
        if len(digits) <= scale:
            digits = "0" * (scale - len(digits) + 1) + digits
        digits = digits[:-scale] + "." + digits[-scale:]
    elif scale < 0:
        digits += "0" * (-scale)
    return ("-" if neg else "") + digits


def canon_date(days):
    return (_EPOCH_DATE + datetime.timedelta(days=days)).isoformat()


def canon_time_millis(ms):
    return "%02d:%02d:%02d.%03d" % (ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000)


def canon_timestamp(value, unit, utc):
    nanos = value * _UNIT_NANOS[unit]
    secs, frac = divmod(nanos, 1_000_000_000)
    days, sod = divmod(secs, 86400)
    d = _EPOCH_DATE + datetime.timedelta(days=days)
    s = "%sT%02d:%02d:%02d.%09d" % (d.isoformat(), sod // 3600, sod // 60 % 60, sod % 60, frac)
    return s + "Z" if utc else s


def _unscaled(dec, scale):
    sign, digits, exp = dec.as_tuple()
    n = int("".join(map(str, digits)) or "0")
    shift = exp + scale
    if shift >= 0:
        n *= 10 ** shift
    else:
        n //= 10 ** (-shift)
    return -n if sign else n


def encode_value(typ, scalar):
    """Canonical JSON value (a Python object for json.dumps) of one Arrow scalar."""
    if not scalar.is_valid:
        return None
    if pat.is_boolean(typ):
        return bool(scalar.as_py())
    if pat.is_integer(typ):
        return int(scalar.as_py())
    if pat.is_floating(typ):
        return canon_float(scalar.as_py())
    if pat.is_decimal(typ):
        return canon_decimal(_unscaled(scalar.as_py(), typ.scale), typ.scale)
    if pat.is_string(typ) or pat.is_large_string(typ):
        return scalar.as_py()
    if pat.is_binary(typ) or pat.is_large_binary(typ) or pat.is_fixed_size_binary(typ):
        return "b64:" + base64.b64encode(scalar.as_py()).decode("ascii")
    if pat.is_date32(typ):
        return canon_date(scalar.value)
    if pat.is_time32(typ) or pat.is_time64(typ):
        # Paimon keeps TIME at millisecond precision whatever the Arrow unit says.
        return canon_time_millis(scalar.value * _UNIT_NANOS[typ.unit] // 1_000_000)
    if pat.is_timestamp(typ):
        return canon_timestamp(scalar.value, typ.unit, typ.tz is not None)
    if pat.is_map(typ):
        pairs = []
        for k, v in zip(scalar.values.field("key"), scalar.values.field("value")):
            pairs.append([encode_value(typ.key_type, k), encode_value(typ.item_type, v)])
        pairs.sort(key=lambda p: dumps(p[0]))
        return pairs
    if pat.is_list(typ) or pat.is_large_list(typ) or pat.is_fixed_size_list(typ):
        return [encode_value(typ.value_type, v) for v in scalar.values]
    if pat.is_struct(typ):
        return {typ.field(i).name: encode_value(typ.field(i).type, scalar[i]) for i in range(typ.num_fields)}
    raise TypeError("no canonical encoding for Arrow type %s" % typ)


def dumps(obj):
    """The one JSON spelling: sorted keys, no spaces, raw UTF-8 (Go mirrors this exactly)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)


def encode_table(table):
    """Sorted canonical JSON lines of an Arrow table (or RecordBatch)."""
    lines = []
    cols = [(f.name, f.type, table.column(i)) for i, f in enumerate(table.schema)]
    for r in range(table.num_rows):
        row = {name: encode_value(typ, col[r]) for name, typ, col in cols}
        lines.append(dumps(row))
    lines.sort()
    return lines


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line)
            f.write("\n")
