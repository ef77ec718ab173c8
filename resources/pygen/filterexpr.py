"""The interop filter syntax: parse once, then (a) build the equivalent pypaimon predicate and
(b) evaluate it exactly on rows, so the generator can prove pypaimon's filtered read is an exact
filter (not just file pruning) before recording it as expected output.

Grammar (the same text is handed to the Go side's predicate.Parse):
  expr    := and ( OR and )*
  and     := atom ( AND atom )*
  atom    := '(' expr ')' | col IS [NOT] NULL | col [NOT] IN '(' lit, ... ')'
           | col [NOT] BETWEEN lit AND lit | col LIKE 'pattern' | col op lit
  op      := = | <> | < | <= | > | >=
  lit     := number | 'string' | DATE 'yyyy-mm-dd' | TIMESTAMP 'yyyy-mm-dd hh:mm:ss[.fff]'
           | TRUE | FALSE
LIKE patterns: 'abc%' (prefix), '%abc' (suffix), '%abc%' (contains) only.
"""

import datetime
import decimal
import re

_TOKEN = re.compile(r"\s*(?:(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<str>'(?:[^']|'')*')"
                    r"|(?P<op><=|>=|<>|=|<|>|\(|\)|,)|(?P<word>[A-Za-z_][A-Za-z0-9_]*))")


def _tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError("filter %r: bad token at %d" % (text, pos))
        pos = m.end()
        kind = m.lastgroup
        val = m.group(kind)
        if kind == "str":
            val = val[1:-1].replace("''", "'")
        out.append((kind, val))
    return out


class _Parser:
    def __init__(self, text):
        self.text, self.toks, self.i = text, _tokens(text), 0

    def peek_word(self, *words):
        if self.i < len(self.toks) and self.toks[self.i][0] == "word" and self.toks[self.i][1].upper() in words:
            return self.toks[self.i][1].upper()
        return None

    def take(self, kind=None, value=None):
        if self.i >= len(self.toks):
            raise ValueError("filter %r: unexpected end" % self.text)
        k, v = self.toks[self.i]
        if (kind and k != kind) or (value and (v.upper() if k == "word" else v) != value):
            raise ValueError("filter %r: expected %s got %r" % (self.text, value or kind, v))
        self.i += 1
        return v

    def parse(self):
        e = self.expr()
        if self.i != len(self.toks):
            raise ValueError("filter %r: trailing %r" % (self.text, self.toks[self.i][1]))
        return e

    def expr(self):
        parts = [self.conj()]
        while self.peek_word("OR"):
            self.i += 1
            parts.append(self.conj())
        return parts[0] if len(parts) == 1 else ("or", parts)

    def conj(self):
        parts = [self.atom()]
        while self.peek_word("AND"):
            self.i += 1
            parts.append(self.atom())
        return parts[0] if len(parts) == 1 else ("and", parts)

    def lit(self):
        k, v = self.toks[self.i]
        if k == "num":
            self.i += 1
            return ("num", v)
        if k == "str":
            self.i += 1
            return ("str", v)
        w = self.peek_word("DATE", "TIMESTAMP", "TRUE", "FALSE")
        if w in ("TRUE", "FALSE"):
            self.i += 1
            return ("bool", w == "TRUE")
        if w == "DATE":
            self.i += 1
            return ("date", datetime.date.fromisoformat(self.take("str")))
        if w == "TIMESTAMP":
            self.i += 1
            return ("ts", datetime.datetime.fromisoformat(self.take("str")))
        raise ValueError("filter %r: expected a literal, got %r" % (self.text, v))

    def atom(self):
        if self.toks[self.i] == ("op", "("):
            self.i += 1
            e = self.expr()
            self.take("op", ")")
            return e
        col = self.take("word")
        if self.peek_word("IS"):
            self.i += 1
            neg = bool(self.peek_word("NOT"))
            if neg:
                self.i += 1
            self.take("word", "NULL")
            return ("notnull" if neg else "isnull", col)
        neg = False
        if self.peek_word("NOT"):
            self.i += 1
            neg = True
        if self.peek_word("IN"):
            self.i += 1
            self.take("op", "(")
            lits = [self.lit()]
            while self.toks[self.i] == ("op", ","):
                self.i += 1
                lits.append(self.lit())
            self.take("op", ")")
            return ("notin" if neg else "in", col, lits)
        if self.peek_word("BETWEEN"):
            self.i += 1
            lo = self.lit()
            self.take("word", "AND")
            hi = self.lit()
            return ("notbetween" if neg else "between", col, lo, hi)
        if neg:
            raise ValueError("filter %r: NOT must be followed by IN or BETWEEN" % self.text)
        if self.peek_word("LIKE"):
            self.i += 1
            pat = self.take("str")
            if pat.startswith("%") and pat.endswith("%") and len(pat) >= 2:
                return ("contains", col, pat[1:-1])
            if pat.startswith("%"):
                return ("endswith", col, pat[1:])
            if pat.endswith("%"):
                return ("startswith", col, pat[:-1])
            raise ValueError("filter %r: LIKE supports prefix/suffix/contains only" % self.text)
        op = self.take("op")
        return ({"=": "eq", "<>": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}[op], col, self.lit())


def parse(text):
    return _Parser(text).parse()


def _convert(lit, pa_type):
    """Literal → the Python value pypaimon expects for the column's Arrow type."""
    import pyarrow.types as pat
    kind, v = lit
    if pat.is_decimal(pa_type):
        return decimal.Decimal(v)
    if pat.is_floating(pa_type):
        return float(v)
    if pat.is_integer(pa_type):
        return int(v)
    if pat.is_timestamp(pa_type) and kind == "ts" and pa_type.tz is not None:
        return v.replace(tzinfo=datetime.timezone.utc)
    return v


_PB = {"eq": "equal", "ne": "not_equal", "lt": "less_than", "le": "less_or_equal", "gt": "greater_than",
       "ge": "greater_or_equal"}


def to_pypaimon(ast, pb, schema):
    """Build the pypaimon Predicate for a parsed filter; schema is the read's pyarrow schema."""
    op = ast[0]
    if op in ("and", "or"):
        ps = [to_pypaimon(a, pb, schema) for a in ast[1]]
        return pb.and_predicates(ps) if op == "and" else pb.or_predicates(ps)
    col = ast[1]
    t = schema.field(col).type
    if op == "isnull":
        return pb.is_null(col)
    if op == "notnull":
        return pb.is_not_null(col)
    if op in ("in", "notin"):
        vals = [_convert(x, t) for x in ast[2]]
        return pb.is_in(col, vals) if op == "in" else pb.is_not_in(col, vals)
    if op in ("between", "notbetween"):
        lo, hi = _convert(ast[2], t), _convert(ast[3], t)
        return pb.between(col, lo, hi) if op == "between" else pb.not_between(col, lo, hi)
    if op in ("startswith", "endswith", "contains"):
        return getattr(pb, op)(col, ast[2])
    return getattr(pb, _PB[op])(col, _convert(ast[2], t))


def evaluate(ast, row, schema):
    """SQL semantics on one row (dict of Python values): NULL compares as false. The syntax has
    no general NOT, so treating UNKNOWN as false inside AND/OR is exact."""
    op = ast[0]
    if op == "and":
        return all(evaluate(a, row, schema) for a in ast[1])
    if op == "or":
        return any(evaluate(a, row, schema) for a in ast[1])
    col = ast[1]
    v = row[col]
    if op == "isnull":
        return v is None
    if op == "notnull":
        return v is not None
    if v is None:
        return False
    t = schema.field(col).type
    if op in ("in", "notin"):
        hit = any(v == _convert(x, t) for x in ast[2])
        return hit if op == "in" else not hit
    if op in ("between", "notbetween"):
        inside = _convert(ast[2], t) <= v <= _convert(ast[3], t)
        return inside if op == "between" else not inside
    if op == "startswith":
        return v.startswith(ast[2])
    if op == "endswith":
        return v.endswith(ast[2])
    if op == "contains":
        return ast[2] in v
    lit = _convert(ast[2], t)
    return {"eq": v == lit, "ne": v != lit, "lt": v < lit, "le": v <= lit, "gt": v > lit, "ge": v >= lit}[op]
