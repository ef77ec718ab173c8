package scan

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/schema"
	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// PathFactory recomputes where Java Paimon put a data file: the manifest
// only records (partition, bucket, file name), so the directory must be
// rebuilt byte-exactly (PartitionPathUtils + InternalRowPartitionComputer).
type PathFactory struct {
	// Root is the table root (data and manifests are shared by branches).
	Root string
	// DataDir is the option data-file.path-directory ("" when unset).
	DataDir string
	// PartitionKeys and PartitionTypes describe the partition row.
	PartitionKeys  []string
	PartitionTypes []types.DataType
	// DefaultName is partition.default-name (__DEFAULT_PARTITION__).
	DefaultName string
	// Legacy is partition.legacy-name (default true).
	Legacy bool
}

// NewPathFactory is the path factory of a table at root read in schema s:
// its partition columns and the options that shape data paths.
func NewPathFactory(root string, s *schema.TableSchema) *PathFactory {
	pf := s.PartitionFields()
	ptypes := make([]types.DataType, len(pf))
	for i, f := range pf {
		ptypes[i] = f.Type
	}
	return &PathFactory{
		Root:           root,
		DataDir:        s.DataFilePathDirectory(),
		PartitionKeys:  s.PartitionKeys,
		PartitionTypes: ptypes,
		DefaultName:    s.PartitionDefaultName(),
		Legacy:         s.PartitionLegacyName(),
	}
}

// BucketDir returns the directory of one (partition, bucket).
func (f *PathFactory) BucketDir(partition []any, bucket int32) (string, error) {
	rel, err := f.PartitionPath(partition)
	if err != nil {
		return "", err
	}
	b := "bucket-" + strconv.Itoa(int(bucket))
	if bucket == -2 {
		b = "bucket-postpone"
	}
	return fileio.Join(f.Root, f.DataDir, rel, b), nil
}

// PartitionPath renders "k1=v1/k2=v2" (no trailing slash, "" when the
// table is not partitioned).
func (f *PathFactory) PartitionPath(values []any) (string, error) {
	if len(f.PartitionKeys) == 0 {
		return "", nil
	}
	if len(values) != len(f.PartitionKeys) {
		return "", fmt.Errorf("partition has %d values, table has %d partition keys", len(values), len(f.PartitionKeys))
	}
	var b strings.Builder
	for i, k := range f.PartitionKeys {
		s, err := f.partitionString(values[i], f.PartitionTypes[i])
		if err != nil {
			return "", fmt.Errorf("partition column %q: %w", k, err)
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(EscapePathName(k))
		b.WriteByte('=')
		b.WriteString(EscapePathName(s))
	}
	return b.String(), nil
}

// partitionString is Java's value-to-string for partition paths.
func (f *PathFactory) partitionString(v any, t types.DataType) (string, error) {
	def := f.DefaultName
	if def == "" {
		def = "__DEFAULT_PARTITION__"
	}
	if v == nil {
		return def, nil
	}
	var s string
	switch x := v.(type) {
	case bool:
		s = strconv.FormatBool(x)
	case int8:
		s = strconv.FormatInt(int64(x), 10)
	case int16:
		s = strconv.FormatInt(int64(x), 10)
	case int32:
		s = strconv.FormatInt(int64(x), 10)
	case int64:
		s = strconv.FormatInt(x, 10)
	case float32:
		s = typeutil.JavaFloatString(float64(x), 32)
	case float64:
		s = typeutil.JavaFloatString(x, 64)
	case string:
		s = x
	case types.DecimalValue:
		s = x.String()
	case types.DateValue:
		if f.Legacy {
			s = strconv.FormatInt(int64(x), 10)
		} else {
			s = x.String()
		}
	case types.TimeValue:
		if f.Legacy {
			s = strconv.FormatInt(int64(x), 10)
		} else {
			s = javaTimeString(x, t.Precision)
		}
	case types.TimestampValue:
		// LTZ values are shifted to the JVM zone by the non-legacy cast; we
		// use UTC, the zone of every CI and container JVM we know of.
		if f.Legacy {
			s = JavaLocalDateTimeString(x)
		} else {
			s = formatTimestamp(x, t.Precision)
		}
	case []byte:
		if f.Legacy {
			// Java renders byte[] by identity ("[B@1b6d3586"): the path can't
			// be recomputed.
			return "", fmt.Errorf("BINARY partition values with partition.legacy-name=true: %w", types.ErrUnsupported)
		}
		if !utf8.Valid(x) {
			s = strings.ToValidUTF8(string(x), "\uFFFD")
		} else {
			s = string(x)
		}
	default:
		return "", fmt.Errorf("partition value of Go type %T: %w", v, types.ErrUnsupported)
	}
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	return s, nil
}

// EscapePathName is PartitionPathUtils.escapePathName: characters < 0x20,
// 0x7F and "#%'*/:=?\{}[]^ are replaced by %XX; everything else, non-ASCII
// included, is kept.
func EscapePathName(s string) string {
	need := false
	for i := 0; i < len(s); i++ {
		if needsEscape(s[i]) {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func needsEscape(c byte) bool {
	if c < 0x20 || c == 0x7F {
		return true
	}
	switch c {
	case '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', '{', '}', '[', ']', '^':
		return true
	}
	return false
}

// JavaLocalDateTimeString is LocalDateTime.toString of a Paimon timestamp:
// seconds omitted when they and the fraction are zero; the fraction printed
// with 3, 6 or 9 digits.
func JavaLocalDateTimeString(ts types.TimestampValue) string {
	t := ts.Time()
	s := t.Format("2006-01-02T15:04")
	nano := t.Nanosecond()
	if t.Second() == 0 && nano == 0 {
		return s
	}
	s += fmt.Sprintf(":%02d", t.Second())
	switch {
	case nano == 0:
	case nano%1e6 == 0:
		s += fmt.Sprintf(".%03d", nano/1e6)
	case nano%1e3 == 0:
		s += fmt.Sprintf(".%06d", nano/1e3)
	default:
		s += fmt.Sprintf(".%09d", nano)
	}
	if y := t.Year(); y > 9999 {
		s = "+" + s
	}
	return s
}

// formatTimestamp is DateTimeUtils.formatTimestamp: "yyyy-MM-dd HH:mm:ss"
// plus the 9-digit fraction right-trimmed of zeros but never shorter than
// precision digits.
func formatTimestamp(ts types.TimestampValue, precision int) string {
	t := ts.Time()
	s := t.Format("2006-01-02 15:04:05")
	frac := fmt.Sprintf("%09d", t.Nanosecond())
	frac = strings.TrimRight(frac, "0")
	if len(frac) < precision {
		frac += strings.Repeat("0", precision-len(frac))
	}
	if frac != "" {
		s += "." + frac
	}
	return s
}

func javaTimeString(v types.TimeValue, precision int) string {
	ms := int64(v)
	t := time.UnixMilli(ms).UTC()
	s := t.Format("15:04:05")
	frac := fmt.Sprintf("%03d", ms%1000)
	frac = strings.TrimRight(frac, "0")
	if len(frac) < precision && precision <= 3 {
		frac += strings.Repeat("0", precision-len(frac))
	}
	if frac != "" {
		s += "." + frac
	}
	return s
}
