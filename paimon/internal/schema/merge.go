package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/internal/typeutil"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Merge engine names (CoreOptions.MergeEngine).
const (
	MergeEngineDeduplicate   = "deduplicate"
	MergeEnginePartialUpdate = "partial-update"
	MergeEngineAggregation   = "aggregation"
	MergeEngineFirstRow      = "first-row"
)

// Option keys of primary-key tables that change what a read returns
// (CoreOptions.java). Only the ones the merge reader interprets or refuses.
const (
	OptIgnoreDelete                = "ignore-delete"
	OptSequenceField               = "sequence.field"
	OptSequenceFieldSortOrder      = "sequence.field.sort-order"
	OptSequenceSnapshotOrdering    = "sequence.snapshot-ordering"
	OptDeletionVectorsMergeOnRead  = "deletion-vectors.merge-on-read"
	OptPKClusteringOverride        = "pk-clustering-override"
	OptPartialUpdateRemoveOnDelete = "partial-update.remove-record-on-delete"
	OptPartialUpdateRemoveOnSeqGrp = "partial-update.remove-record-on-sequence-group"
	OptAggregationRemoveOnDelete   = "aggregation.remove-record-on-delete"
	OptDefaultAggregateFunction    = "fields.default-aggregate-function"
	OptForceLookup                 = "force-lookup"
)

// ignoreDeleteKeys are ignore-delete and its fallback keys
// (CoreOptions.IGNORE_DELETE withFallbackKeys).
func ignoreDeleteKeys() []string {
	return []string{OptIgnoreDelete, "deduplicate.ignore-delete", "partial-update.ignore-delete", "first-row.ignore-delete"}
}

// knownAgg reports the aggregate functions implemented here.
func knownAgg(fn string) bool {
	switch fn {
	case "sum", "min", "max", "last_value", "last_non_null_value", "first_value",
		"first_non_null_value", "listagg", "bool_and", "bool_or", "product", "collect", "merge_map",
		"nested_update", "rbm32", "rbm64":
		return true
	}
	return false
}

// refusedAgg explains the Java 1.3.1 aggregate functions the reader refuses.
func refusedAgg(fn string) string {
	switch fn {
	case "count":
		// Java 1.3.1's FieldAggregatorFactory list has no count: Java fails
		// such a table ("Use unsupported aggregation"), so must we.
		return "Java Paimon 1.3.1 has no such aggregate function (its read fails: \"Use unsupported aggregation: count\")"
	case "hll_sketch", "theta_sketch":
		return "the value is a DataSketches sketch whose union is not reimplemented here"
	}
	return ""
}

// JavaHashable reports whether the reader reproduces Java's hashCode and
// equals of values of t as Paimon's InternalArray/InternalMap getters return
// them, which decides the element order of Java's HashSet/HashMap results
// (collect with distinct, merge_map). BINARY values are byte[] there (identity
// hash: Java's own result is not deterministic); the others are left out
// until needed.
func JavaHashable(t types.DataType) bool {
	switch t.Root {
	case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
		types.Date, types.Time, types.Char, types.VarChar:
		return true
	}
	return false
}

// aggTypeOK is the type check Java's factories apply (FieldAggregator.createFieldAggregator
// and the per-function constructors).
func aggTypeOK(fn string, t types.DataType) bool {
	switch fn {
	case "sum":
		return t.IsNumeric()
	case "min", "max":
		return Orderable(t)
	case "last_value", "last_non_null_value", "first_value", "first_non_null_value", "first_not_null_value":
		return true
	case "listagg":
		return t.IsString()
	case "bool_and", "bool_or":
		return t.Root == types.Boolean
	case "product":
		return t.IsNumeric()
	case "collect":
		return t.Root == types.Array
	case "merge_map":
		return t.Root == types.Map
	case "nested_update":
		return t.Root == types.Array && t.Element.Root == types.Row
	case "rbm32", "rbm64":
		return t.Root == types.VarBinary
	}
	return false
}

// Orderable reports whether the comparators of this package can order
// values of t (primary keys, sequence fields, min/max).
func Orderable(t types.DataType) bool {
	switch t.Root {
	case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt,
		types.Float, types.Double, types.Decimal, types.Char, types.VarChar,
		types.Binary, types.VarBinary, types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
		return true
	}
	return false
}

// MergeOptions is how a primary-key table merges the records of one key,
// parsed from the schema's options and checked against what the reader
// implements. The merge reader takes it as is; it is parsed once per schema
// (see TableSchema.MergeOptions), never per split.
type MergeOptions struct {
	// Engine is one of the MergeEngine* names.
	Engine string
	// IgnoreDelete is ignore-delete (or one of its fallback keys).
	IgnoreDelete bool
	// SequenceFields are the sequence.field columns, in option order.
	SequenceFields []string
	// Aggregates maps every non-key column to its aggregate function
	// (aggregation engine only; empty otherwise).
	Aggregates map[string]string
	// IgnoreRetract holds the columns with fields.<f>.ignore-retract=true.
	IgnoreRetract map[string]bool
	// ListaggDelimiter maps listagg columns to their delimiter.
	ListaggDelimiter map[string]string
	// SequenceGroups are the partial-update sequence groups
	// (fields.<seq>[,<seq>...].sequence-group=<cols>), sorted by their
	// first sequence field.
	SequenceGroups []SequenceGroup
	// GroupAggregates maps a partial-update column to its aggregate
	// function: only sequence-group members (a last_non_null_value
	// elsewhere behaves as the plain partial update and is left out).
	GroupAggregates map[string]string
	// RemoveOnDelete is partial-update.remove-record-on-delete.
	RemoveOnDelete bool
	// RemoveOnSequenceGroup holds the sequence fields named by
	// partial-update.remove-record-on-sequence-group.
	RemoveOnSequenceGroup map[string]bool
	// AggregationRemoveOnDelete is aggregation.remove-record-on-delete.
	AggregationRemoveOnDelete bool
	// Distinct holds the collect columns with fields.<f>.distinct=true.
	Distinct map[string]bool
	// CountLimit maps nested_update columns to fields.<f>.count-limit.
	CountLimit map[string]int
	// NestedKey maps nested_update columns to the fields of their rows
	// named by fields.<f>.nested-key.
	NestedKey map[string][]string
	// LookupLevels is set when Java wraps the merge function in its
	// LookupMergeFunction (CoreOptions.needLookup: changelog-producer=lookup,
	// deletion vectors or force-lookup; first-row needs lookup too but is
	// never wrapped). Lookup compaction writes a key's merged value into a
	// lower level while the older copy stays in a higher one, so of a key's
	// records above level 0 only the one of the lowest level may be merged:
	// the others are already contained in it.
	LookupLevels bool
}

// SequenceGroup is one partial-update sequence group: the Members are
// updated (or retracted) only by records whose SequenceFields values are
// not older than the accumulated ones.
type SequenceGroup struct {
	SequenceFields []string
	Members        []string
}

// WithOptions returns a copy of the schema whose options are exactly opts,
// its merge options parsed anew. Options must never be changed in place
// after Parse (the parsed merge options would go stale); derive a schema
// with other options through WithOptions.
func (s *TableSchema) WithOptions(opts map[string]string) *TableSchema {
	c := *s
	c.Options = opts
	c.merge = nil
	if len(c.PrimaryKeys) > 0 {
		mo, err := parseMergeOptions(&c)
		c.merge = &mergeParse{opts: mo, err: err}
	}
	return &c
}

// mergeParse is the result of parsing a schema's merge options once.
type mergeParse struct {
	opts *MergeOptions
	err  error
}

// MergeOptions returns the table's merge behaviour. Every merge engine,
// merge option and aggregate function the reader does not implement is
// refused with an error wrapping types.ErrUnsupported that names the
// option: silently falling back to another behaviour would return wrong
// rows. Schemas from Parse answer from the result computed when the file
// was parsed.
func (s *TableSchema) MergeOptions() (*MergeOptions, error) {
	if s.merge != nil {
		return s.merge.opts, s.merge.err
	}
	return parseMergeOptions(s)
}

func unsupported(s *TableSchema, format string, args ...any) error {
	return fmt.Errorf("primary-key table (schema %d): %s: %w", s.ID, fmt.Sprintf(format, args...), types.ErrUnsupported)
}

func parseMergeOptions(s *TableSchema) (*MergeOptions, error) {
	if len(s.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("table (schema %d) has no primary key; the merge reader is for primary-key tables", s.ID)
	}
	c := &MergeOptions{
		Engine:                s.MergeEngine(),
		Aggregates:            map[string]string{},
		IgnoreRetract:         map[string]bool{},
		ListaggDelimiter:      map[string]string{},
		GroupAggregates:       map[string]string{},
		RemoveOnSequenceGroup: map[string]bool{},
		Distinct:              map[string]bool{},
		CountLimit:            map[string]int{},
		NestedKey:             map[string][]string{},
	}
	switch c.Engine {
	case MergeEngineDeduplicate, MergeEngineFirstRow, MergeEnginePartialUpdate, MergeEngineAggregation:
	default:
		return nil, unsupported(s, "merge-engine %q", c.Engine)
	}
	for _, k := range ignoreDeleteKeys() {
		if _, ok := s.Options[k]; !ok {
			continue
		}
		b, err := s.BoolOption(k, false)
		if err != nil {
			return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
		}
		c.IgnoreDelete = b
		break // the first key set wins, like Java's fallback keys
	}
	for _, k := range s.TrimmedPrimaryKeys() {
		f, _ := s.Field(k)
		if !Orderable(f.Type) {
			return nil, unsupported(s, "primary key column %q of type %s", k, f.Type)
		}
	}
	if v := strings.TrimSpace(s.Options[OptSequenceField]); v != "" {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			f, ok := s.Field(name)
			if !ok {
				return nil, fmt.Errorf("primary-key table (schema %d): sequence.field %q is not a column", s.ID, name)
			}
			if !Orderable(f.Type) {
				return nil, unsupported(s, "sequence.field %q of type %s", name, f.Type)
			}
			c.SequenceFields = append(c.SequenceFields, name)
		}
		if c.Engine == MergeEngineFirstRow {
			// SchemaValidation: "Do not support use sequence field on
			// FIRST_ROW merge engine."
			return nil, unsupported(s, "sequence.field with merge-engine %s", c.Engine)
		}
	}
	if v, ok := s.Options[OptSequenceFieldSortOrder]; ok && !strings.EqualFold(strings.TrimSpace(v), "ascending") {
		// Java 1.3 has no single reading of a descending table to match:
		// its generated-comparator cache is keyed by the sequence columns'
		// types and positions, not their order (fixed in 1.4), so a JVM
		// that built the ascending comparator first reads descending as
		// ascending — what the oracle (JavaPkGen) saw — and its write buffer
		// merged by ascending order whatever the option (fixed in 2.0).
		return nil, unsupported(s, "%s=%s", OptSequenceFieldSortOrder, v)
	}
	for _, k := range []string{OptPartialUpdateRemoveOnDelete, OptAggregationRemoveOnDelete} {
		b, err := s.BoolOption(k, false)
		if err != nil {
			return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
		}
		if k == OptPartialUpdateRemoveOnDelete {
			c.RemoveOnDelete = b && c.Engine == MergeEnginePartialUpdate
		} else {
			c.AggregationRemoveOnDelete = b && c.Engine == MergeEngineAggregation
		}
	}
	forceLookup, err := s.BoolOption(OptForceLookup, false)
	if err != nil {
		return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
	}
	dv, err := s.BoolOption(OptDeletionVectorsEnabled, false)
	if err != nil {
		return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
	}
	// LookupMergeFunction.wrap leaves first-row alone: its function already
	// keeps the oldest record.
	c.LookupLevels = c.Engine != MergeEngineFirstRow && (s.ChangelogProducer() == "lookup" || dv || forceLookup)
	for _, k := range []string{OptSequenceSnapshotOrdering, OptDeletionVectorsMergeOnRead, OptPKClusteringOverride} {
		if b, err := s.BoolOption(k, false); err != nil {
			return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
		} else if b {
			return nil, unsupported(s, "option %s=true", k)
		}
	}
	if v, ok := s.Options[OptPKClusteringOverride]; ok && !strings.EqualFold(v, "false") {
		return nil, unsupported(s, "option %s=%s", OptPKClusteringOverride, v)
	}
	// fields.<f>.<suffix> options, visited in a stable order so the error
	// names the same option every time.
	keys := make([]string, 0, len(s.Options))
	for k := range s.Options {
		if strings.HasPrefix(k, "fields.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == OptDefaultAggregateFunction {
			continue
		}
		rest := strings.TrimPrefix(k, "fields.")
		i := strings.LastIndexByte(rest, '.')
		if i < 0 {
			return nil, unsupported(s, "option %s", k)
		}
		field, suffix := rest[:i], rest[i+1:]
		v := s.Options[k]
		switch suffix {
		case "sequence-group":
			if c.Engine != MergeEnginePartialUpdate {
				continue // only PartialUpdateMergeFunction reads them
			}
			g, err := parseSeqGroup(s, k, field, v)
			if err != nil {
				return nil, err
			}
			c.SequenceGroups = append(c.SequenceGroups, g)
		case "aggregate-function":
			if c.Engine != MergeEngineAggregation && c.Engine != MergeEnginePartialUpdate {
				return nil, unsupported(s, "option %s with merge-engine %s", k, c.Engine)
			}
			c.Aggregates[field] = strings.TrimSpace(v)
		case "ignore-retract":
			err = setParsed(c.IgnoreRetract, field, k, v, parseBool)
		case "list-agg-delimiter":
			c.ListaggDelimiter[field] = v
		case "distinct":
			err = setParsed(c.Distinct, field, k, v, parseBool)
		case "count-limit":
			err = setParsed(c.CountLimit, field, k, v, parseInt)
		case "nested-key":
			if strings.TrimSpace(v) != "" {
				for _, name := range strings.Split(v, ",") {
					c.NestedKey[field] = append(c.NestedKey[field], strings.TrimSpace(name))
				}
			}
		default:
			// Unknown suffixes belong to features not implemented.
			return nil, unsupported(s, "option %s", k)
		}
		if err != nil {
			return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
		}
	}
	if c.Engine == MergeEnginePartialUpdate {
		if err := c.partialUpdateConfig(s); err != nil {
			return nil, err
		}
		return c, nil
	}
	if c.Engine == MergeEngineAggregation {
		def := strings.TrimSpace(s.Options[OptDefaultAggregateFunction])
		seq := map[string]bool{}
		for _, f := range c.SequenceFields {
			seq[f] = true
		}
		pks := map[string]bool{}
		for _, k := range s.PrimaryKeys {
			pks[k] = true
		}
		for _, f := range s.Fields {
			if pks[f.Name] {
				delete(c.Aggregates, f.Name) // primary keys never aggregate
				continue
			}
			fn := c.Aggregates[f.Name]
			if seq[f.Name] {
				// AggregateMergeFunction.getAggFuncName: sequence fields
				// are covered by last_value (SchemaValidation forbids an
				// explicit function on them).
				if fn != "" {
					return nil, fmt.Errorf("primary-key table (schema %d): fields.%s.aggregate-function on sequence field %q", s.ID, f.Name, f.Name)
				}
				fn = "last_value"
			}
			if fn == "" {
				fn = def
			}
			if fn == "" {
				fn = "last_non_null_value"
			}
			if fn == "first_not_null_value" {
				fn = "first_non_null_value" // legacy name
			}
			if err := c.checkAgg(s, fn, f); err != nil {
				return nil, err
			}
			c.Aggregates[f.Name] = fn
		}
		for name := range c.Aggregates {
			if _, ok := s.Field(name); !ok {
				return nil, fmt.Errorf("primary-key table (schema %d): fields.%s.aggregate-function names no column", s.ID, name)
			}
		}
	} else if len(c.IgnoreRetract) > 0 || len(c.ListaggDelimiter) > 0 {
		// These only mean something to the aggregation and partial-update
		// engines; Java ignores them elsewhere, so do we.
		c.IgnoreRetract, c.ListaggDelimiter = map[string]bool{}, map[string]string{}
	}
	if c.AggregationRemoveOnDelete {
		for _, f := range s.Fields {
			if c.IgnoreRetract[f.Name] {
				// SchemaValidation: "... have conflicting behavior so
				// should not be enabled at the same time."
				return nil, fmt.Errorf("primary-key table (schema %d): %s and fields.%s.ignore-retract conflict", s.ID, OptAggregationRemoveOnDelete, f.Name)
			}
		}
	}
	if _, ok := s.Options[OptDefaultAggregateFunction]; ok && c.Engine != MergeEngineAggregation {
		return nil, unsupported(s, "option %s with merge-engine %s", OptDefaultAggregateFunction, c.Engine)
	}
	return c, nil
}

// checkAgg refuses an aggregate function the reader does not implement for
// column f, naming both.
func (c *MergeOptions) checkAgg(s *TableSchema, fn string, f types.DataField) error {
	if why := refusedAgg(fn); why != "" {
		return unsupported(s, "aggregate function %q (column %q): %s", fn, f.Name, why)
	}
	if !knownAgg(fn) {
		return unsupported(s, "aggregate function %q (column %q)", fn, f.Name)
	}
	if !aggTypeOK(fn, f.Type) {
		return unsupported(s, "aggregate function %q on column %q of type %s", fn, f.Name, f.Type)
	}
	switch {
	case fn == "collect" && c.Distinct[f.Name] && !JavaHashable(*f.Type.Element):
		return unsupported(s, "aggregate function collect with fields.%s.distinct=true on elements of type %s (Java's HashSet order of them is not reproduced)", f.Name, *f.Type.Element)
	case fn == "nested_update" && len(c.NestedKey[f.Name]) > 0:
		for _, k := range c.NestedKey[f.Name] {
			i := typeutil.FieldByName(f.Type.Element.Fields, k)
			if i < 0 {
				return fmt.Errorf("primary-key table (schema %d): fields.%s.nested-key names %q, no field of %s", s.ID, f.Name, k, *f.Type.Element)
			}
			if !JavaHashable(f.Type.Element.Fields[i].Type) {
				return unsupported(s, "fields.%s.nested-key field %q of type %s (Java's HashMap order of such keys is not reproduced)", f.Name, k, f.Type.Element.Fields[i].Type)
			}
		}
	case fn == "merge_map" && !JavaHashable(*f.Type.Key):
		return unsupported(s, "aggregate function merge_map on column %q with keys of type %s (Java's HashMap order of them is not reproduced)", f.Name, *f.Type.Key)
	}
	return nil
}

// BatchScanSkipLevel0 reports whether a batch read of the table hides level-0
// files, as Java's CoreOptions.batchScanSkipLevel0 does: with deletion
// vectors (unless deletion-vectors.merge-on-read) or the first-row engine,
// only compacted files are visible. The planner applies it to normal batch
// scans, never to incremental/streaming ones.
func (s *TableSchema) BatchScanSkipLevel0() bool {
	if len(s.PrimaryKeys) == 0 {
		return false
	}
	if s.MergeEngine() == MergeEngineFirstRow {
		return true
	}
	if !s.DeletionVectorsEnabled() {
		return false
	}
	mor, err := s.BoolOption(OptDeletionVectorsMergeOnRead, false)
	return err != nil || !mor
}

// parseSeqGroup reads one fields.<seq>[,<seq>...].sequence-group option.
// Names are split on "," without trimming, as Java does (a name with
// spaces is no column there either).
func parseSeqGroup(s *TableSchema, key, seqPart, members string) (SequenceGroup, error) {
	var g SequenceGroup
	col := func(name, role string) error {
		f, ok := s.Field(name)
		if !ok {
			return fmt.Errorf("primary-key table (schema %d): option %s: %s %q is not a column", s.ID, key, role, name)
		}
		if contains(s.PartitionKeys, name) {
			return unsupported(s, "option %s: partition column %q in a sequence group", key, name)
		}
		if role == "sequence field" && !Orderable(f.Type) {
			return unsupported(s, "option %s: sequence field %q of type %s", key, name, f.Type)
		}
		return nil
	}
	for _, name := range strings.Split(seqPart, ",") {
		if err := col(name, "sequence field"); err != nil {
			return g, err
		}
		g.SequenceFields = append(g.SequenceFields, name)
	}
	for _, name := range strings.Split(members, ",") {
		if err := col(name, "field"); err != nil {
			return g, err
		}
		g.Members = append(g.Members, name)
	}
	return g, nil
}

// partialUpdateConfig checks the sequence groups and picks the per-field
// aggregators of a partial-update table the way
// PartialUpdateMergeFunction.Factory and SchemaValidation do.
func (c *MergeOptions) partialUpdateConfig(s *TableSchema) error {
	sort.Slice(c.SequenceGroups, func(i, j int) bool {
		return c.SequenceGroups[i].SequenceFields[0] < c.SequenceGroups[j].SequenceFields[0]
	})
	member := map[string]string{} // column → sequence-group option naming it
	seqOf := map[string]bool{}
	for _, g := range c.SequenceGroups {
		opt := "fields." + strings.Join(g.SequenceFields, ",") + ".sequence-group"
		for _, m := range g.Members {
			if prev, ok := member[m]; ok {
				return fmt.Errorf("primary-key table (schema %d): field %q is in two sequence groups (%s and %s)", s.ID, m, prev, opt)
			}
			member[m] = opt
		}
		for _, q := range g.SequenceFields {
			if seqOf[q] {
				// Java's Factory keeps whichever group its option map
				// iterates last: no defined behaviour to copy.
				return unsupported(s, "sequence field %q of two sequence groups", q)
			}
			seqOf[q] = true
		}
	}
	for q := range seqOf {
		if opt, ok := member[q]; ok {
			return unsupported(s, "sequence field %q is also a member of %s", q, opt)
		}
		if _, ok := c.Aggregates[q]; ok {
			// SchemaValidation.validateSequenceGroup.
			return fmt.Errorf("primary-key table (schema %d): fields.%s.aggregate-function on sequence group field %q", s.ID, q, q)
		}
	}
	pks := map[string]bool{}
	for _, k := range s.PrimaryKeys {
		pks[k] = true
	}
	for name := range c.Aggregates {
		if _, ok := s.Field(name); !ok {
			return fmt.Errorf("primary-key table (schema %d): fields.%s.aggregate-function names no column", s.ID, name)
		}
	}
	def := strings.TrimSpace(s.Options[OptDefaultAggregateFunction])
	for _, f := range s.Fields {
		if seqOf[f.Name] || pks[f.Name] {
			continue // getAggFuncName: no aggregator / primary-key aggregator
		}
		fn := c.Aggregates[f.Name]
		if fn == "" {
			fn = def
		}
		if fn == "" {
			continue
		}
		if _, ok := member[f.Name]; !ok {
			if fn != "last_non_null_value" {
				return fmt.Errorf("primary-key table (schema %d): aggregate function %q on column %q needs a sequence group (Java: \"Must use sequence group for aggregation functions\")", s.ID, fn, f.Name)
			}
			continue // outside groups Java never calls it: plain partial update
		}
		if fn == "first_not_null_value" {
			fn = "first_non_null_value"
		}
		if err := c.checkAgg(s, fn, f); err != nil {
			return err
		}
		c.GroupAggregates[f.Name] = fn
	}
	c.Aggregates = map[string]string{}
	if v, ok := s.Options[OptPartialUpdateRemoveOnSeqGrp]; ok {
		if c.IgnoreDelete {
			return fmt.Errorf("primary-key table (schema %d): ignore-delete and %s conflict", s.ID, OptPartialUpdateRemoveOnSeqGrp)
		}
		for _, name := range strings.Split(v, ",") {
			if !seqOf[name] {
				return fmt.Errorf("primary-key table (schema %d): field %q of %s is no sequence group field", s.ID, name, OptPartialUpdateRemoveOnSeqGrp)
			}
			c.RemoveOnSequenceGroup[name] = true
		}
	}
	if c.RemoveOnDelete && c.IgnoreDelete {
		return fmt.Errorf("primary-key table (schema %d): ignore-delete and %s conflict", s.ID, OptPartialUpdateRemoveOnDelete)
	}
	if c.RemoveOnDelete && len(c.SequenceGroups) > 0 {
		return fmt.Errorf("primary-key table (schema %d): sequence-group and %s conflict", s.ID, OptPartialUpdateRemoveOnDelete)
	}
	return nil
}

// setParsed parses one per-field option's value into m[field].
func setParsed[T any](m map[string]T, field, key, value string, parse func(key, value string) (T, error)) error {
	v, err := parse(key, value)
	if err == nil {
		m[field] = v
	}
	return err
}
