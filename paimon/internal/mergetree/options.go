// Package mergetree reads the files of one (partition, bucket) of a
// primary-key table the way Java Paimon's MergeFileSplitRead does: a k-way
// merge of the bucket's sorted runs by primary key, ordered by the user
// sequence fields and _SEQUENCE_NUMBER, folding each key's records with the
// table's merge engine and dropping retract (-U/-D) results. It also has a
// raw reader for streaming splits that returns every record with its row
// kind, unmerged.
//
// Keys are always derived from the value columns by primary-key field id,
// never from the physical _KEY_* columns: Java does the same
// (FormatReaderMapping.trimKeyFields), and thin-mode files have none.
package mergetree

import (
	"fmt"
	"sort"
	"strings"

	"github.com/connect-paimon/connect-paimon/paimon/schema"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// Merge engine names (CoreOptions.MergeEngine).
const (
	EngineDeduplicate   = "deduplicate"
	EnginePartialUpdate = "partial-update"
	EngineAggregation   = "aggregation"
	EngineFirstRow      = "first-row"
)

// Option keys of primary-key tables that change what a read returns
// (CoreOptions.java). Only the ones this package interprets or refuses.
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
)

// ignoreDeleteKeys are ignore-delete and its fallback keys
// (CoreOptions.IGNORE_DELETE withFallbackKeys).
func ignoreDeleteKeys() []string {
	return []string{OptIgnoreDelete, "deduplicate.ignore-delete", "partial-update.ignore-delete", "first-row.ignore-delete"}
}

// knownAgg reports the aggregate functions implemented here.
func knownAgg(fn string) bool {
	switch fn {
	case "sum", "count", "min", "max", "last_value", "last_non_null_value", "first_value",
		"first_non_null_value", "listagg", "bool_and", "bool_or":
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
	case "count":
		// FieldCountAgg only handles INTEGER and BIGINT.
		return t.Root == types.Int || t.Root == types.BigInt
	case "min", "max":
		return scalarKeyType(t)
	case "last_value", "last_non_null_value", "first_value", "first_non_null_value", "first_not_null_value":
		return true
	case "listagg":
		return t.IsString()
	case "bool_and", "bool_or":
		return t.Root == types.Boolean
	}
	return false
}

// scalarKeyType reports whether the comparators of this package can order
// values of t (primary keys, sequence fields, min/max).
func scalarKeyType(t types.DataType) bool {
	switch t.Root {
	case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt,
		types.Float, types.Double, types.Decimal, types.Char, types.VarChar,
		types.Binary, types.VarBinary, types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
		return true
	}
	return false
}

// config is the merge behaviour of one table, validated by CheckSupported.
type config struct {
	engine       string
	ignoreDelete bool
	seqFields    []string
	// aggs maps a non-key column name to its aggregate function
	// (aggregation engine only).
	aggs map[string]string
	// ignoreRetract holds the columns with fields.<f>.ignore-retract=true.
	ignoreRetract map[string]bool
	// listaggDelim maps listagg columns to their delimiter.
	listaggDelim map[string]string
	// groups are the partial-update sequence groups
	// (fields.<seq>[,<seq>...].sequence-group=<cols>), in option-key order.
	groups []seqGroup
	// puAggs maps a partial-update column to its aggregate function: only
	// sequence-group members (a last_non_null_value elsewhere behaves as
	// the plain partial update and is left out).
	puAggs map[string]string
	// removeOnDelete is partial-update.remove-record-on-delete.
	removeOnDelete bool
	// removeOnSeqGroup holds the sequence fields named by
	// partial-update.remove-record-on-sequence-group.
	removeOnSeqGroup map[string]bool
	// aggRemoveOnDelete is aggregation.remove-record-on-delete.
	aggRemoveOnDelete bool
}

// seqGroup is one partial-update sequence group: the columns in members
// are updated (or retracted) only by records whose seq values are not
// older than the accumulated ones.
type seqGroup struct {
	seq     []string
	members []string
}

func (c *config) aggFor(name string) string { return c.aggs[name] }

// CheckSupported reports whether this package can read the primary-key
// table s exactly as Java does. Every merge engine, merge option and
// aggregate function it does not implement is refused with an error
// wrapping types.ErrUnsupported that names the option: silently falling
// back to another behaviour would return wrong rows.
func CheckSupported(s *schema.TableSchema) error {
	_, err := parseConfig(s)
	return err
}

func unsupported(s *schema.TableSchema, format string, args ...any) error {
	return fmt.Errorf("primary-key table (schema %d): %s: %w", s.ID, fmt.Sprintf(format, args...), types.ErrUnsupported)
}

func parseConfig(s *schema.TableSchema) (*config, error) {
	if len(s.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("table (schema %d) has no primary key; the merge reader is for primary-key tables", s.ID)
	}
	c := &config{
		engine:           s.MergeEngine(),
		aggs:             map[string]string{},
		ignoreRetract:    map[string]bool{},
		listaggDelim:     map[string]string{},
		puAggs:           map[string]string{},
		removeOnSeqGroup: map[string]bool{},
	}
	switch c.engine {
	case EngineDeduplicate, EngineFirstRow, EnginePartialUpdate, EngineAggregation:
	default:
		return nil, unsupported(s, "merge-engine %q", c.engine)
	}
	for _, k := range ignoreDeleteKeys() {
		if _, ok := s.Options[k]; !ok {
			continue
		}
		b, err := s.BoolOption(k, false)
		if err != nil {
			return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
		}
		c.ignoreDelete = b
		break // the first key set wins, like Java's fallback keys
	}
	for _, k := range s.TrimmedPrimaryKeys() {
		f, _ := s.Field(k)
		if !scalarKeyType(f.Type) {
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
			if !scalarKeyType(f.Type) {
				return nil, unsupported(s, "sequence.field %q of type %s", name, f.Type)
			}
			c.seqFields = append(c.seqFields, name)
		}
		if c.engine == EngineFirstRow {
			// SchemaValidation: "Do not support use sequence field on
			// FIRST_ROW merge engine."
			return nil, unsupported(s, "sequence.field with merge-engine %s", c.engine)
		}
	}
	if v, ok := s.Options[OptSequenceFieldSortOrder]; ok && !strings.EqualFold(strings.TrimSpace(v), "ascending") {
		// Java 1.3.1 read a descending table exactly like an ascending one
		// in the oracle (JavaPkGen), against the option's documentation:
		// until that is understood, refuse rather than guess.
		return nil, unsupported(s, "%s=%s", OptSequenceFieldSortOrder, v)
	}
	for _, k := range []string{OptPartialUpdateRemoveOnDelete, OptAggregationRemoveOnDelete} {
		b, err := s.BoolOption(k, false)
		if err != nil {
			return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
		}
		if k == OptPartialUpdateRemoveOnDelete {
			c.removeOnDelete = b && c.engine == EnginePartialUpdate
		} else {
			c.aggRemoveOnDelete = b && c.engine == EngineAggregation
		}
	}
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
			if c.engine != EnginePartialUpdate {
				continue // only PartialUpdateMergeFunction reads them
			}
			g, err := parseSeqGroup(s, k, field, v)
			if err != nil {
				return nil, err
			}
			c.groups = append(c.groups, g)
		case "aggregate-function":
			if c.engine != EngineAggregation && c.engine != EnginePartialUpdate {
				return nil, unsupported(s, "option %s with merge-engine %s", k, c.engine)
			}
			c.aggs[field] = strings.TrimSpace(v)
		case "ignore-retract":
			b, err := parseBool(k, v)
			if err != nil {
				return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
			}
			c.ignoreRetract[field] = b
		case "list-agg-delimiter":
			c.listaggDelim[field] = v
		case "distinct":
			b, err := parseBool(k, v)
			if err != nil {
				return nil, fmt.Errorf("primary-key table (schema %d): %w", s.ID, err)
			}
			if b {
				return nil, unsupported(s, "option %s=true", k)
			}
		default:
			// nested-key, collect/merge-map options, unknown
			// suffixes: all belong to features not implemented.
			return nil, unsupported(s, "option %s", k)
		}
	}
	if c.engine == EnginePartialUpdate {
		if err := c.partialUpdateConfig(s); err != nil {
			return nil, err
		}
		return c, nil
	}
	if c.engine == EngineAggregation {
		def := strings.TrimSpace(s.Options[OptDefaultAggregateFunction])
		seq := map[string]bool{}
		for _, f := range c.seqFields {
			seq[f] = true
		}
		pks := map[string]bool{}
		for _, k := range s.PrimaryKeys {
			pks[k] = true
		}
		for _, f := range s.Fields {
			if pks[f.Name] {
				delete(c.aggs, f.Name) // primary keys never aggregate
				continue
			}
			fn := c.aggs[f.Name]
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
			if !knownAgg(fn) {
				return nil, unsupported(s, "aggregate function %q (column %q)", fn, f.Name)
			}
			if !aggTypeOK(fn, f.Type) {
				return nil, unsupported(s, "aggregate function %q on column %q of type %s", fn, f.Name, f.Type)
			}
			c.aggs[f.Name] = fn
		}
		for name := range c.aggs {
			if _, ok := s.Field(name); !ok {
				return nil, fmt.Errorf("primary-key table (schema %d): fields.%s.aggregate-function names no column", s.ID, name)
			}
		}
	} else if len(c.ignoreRetract) > 0 || len(c.listaggDelim) > 0 {
		// These only mean something to the aggregation and partial-update
		// engines; Java ignores them elsewhere, so do we.
		c.ignoreRetract, c.listaggDelim = map[string]bool{}, map[string]string{}
	}
	if _, ok := s.Options[OptDefaultAggregateFunction]; ok && c.engine != EngineAggregation {
		return nil, unsupported(s, "option %s with merge-engine %s", OptDefaultAggregateFunction, c.engine)
	}
	return c, nil
}

func parseBool(key, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("option %s: %q is not a boolean", key, v)
}

// SkipLevel0 reports whether a batch read of the table hides level-0
// files, as Java's CoreOptions.batchScanSkipLevel0 does: with deletion
// vectors (unless deletion-vectors.merge-on-read) or the first-row engine,
// only compacted files are visible. The planner applies it to normal batch
// scans, never to incremental/streaming ones.
func SkipLevel0(s *schema.TableSchema) bool {
	if len(s.PrimaryKeys) == 0 {
		return false
	}
	if s.MergeEngine() == EngineFirstRow {
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
func parseSeqGroup(s *schema.TableSchema, key, seqPart, members string) (seqGroup, error) {
	var g seqGroup
	col := func(name, role string) error {
		f, ok := s.Field(name)
		if !ok {
			return fmt.Errorf("primary-key table (schema %d): option %s: %s %q is not a column", s.ID, key, role, name)
		}
		if indexOf(s.PartitionKeys, name) >= 0 {
			return unsupported(s, "option %s: partition column %q in a sequence group", key, name)
		}
		if role == "sequence field" && !scalarKeyType(f.Type) {
			return unsupported(s, "option %s: sequence field %q of type %s", key, name, f.Type)
		}
		return nil
	}
	for _, name := range strings.Split(seqPart, ",") {
		if err := col(name, "sequence field"); err != nil {
			return g, err
		}
		g.seq = append(g.seq, name)
	}
	for _, name := range strings.Split(members, ",") {
		if err := col(name, "field"); err != nil {
			return g, err
		}
		g.members = append(g.members, name)
	}
	return g, nil
}

// partialUpdateConfig checks the sequence groups and picks the per-field
// aggregators of a partial-update table the way
// PartialUpdateMergeFunction.Factory and SchemaValidation do.
func (c *config) partialUpdateConfig(s *schema.TableSchema) error {
	sort.Slice(c.groups, func(i, j int) bool { return c.groups[i].seq[0] < c.groups[j].seq[0] })
	member := map[string]string{} // column → sequence-group option naming it
	seqOf := map[string]bool{}
	for _, g := range c.groups {
		opt := "fields." + strings.Join(g.seq, ",") + ".sequence-group"
		for _, m := range g.members {
			if prev, ok := member[m]; ok {
				return fmt.Errorf("primary-key table (schema %d): field %q is in two sequence groups (%s and %s)", s.ID, m, prev, opt)
			}
			member[m] = opt
		}
		for _, q := range g.seq {
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
		if _, ok := c.aggs[q]; ok {
			// SchemaValidation.validateSequenceGroup.
			return fmt.Errorf("primary-key table (schema %d): fields.%s.aggregate-function on sequence group field %q", s.ID, q, q)
		}
	}
	pks := map[string]bool{}
	for _, k := range s.PrimaryKeys {
		pks[k] = true
	}
	for name := range c.aggs {
		if _, ok := s.Field(name); !ok {
			return fmt.Errorf("primary-key table (schema %d): fields.%s.aggregate-function names no column", s.ID, name)
		}
	}
	def := strings.TrimSpace(s.Options[OptDefaultAggregateFunction])
	for _, f := range s.Fields {
		if seqOf[f.Name] || pks[f.Name] {
			continue // getAggFuncName: no aggregator / primary-key aggregator
		}
		fn := c.aggs[f.Name]
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
		if !knownAgg(fn) || fn == "count" {
			// count is no aggregate function of Java Paimon 1.3.1.
			return unsupported(s, "aggregate function %q (column %q)", fn, f.Name)
		}
		if !aggTypeOK(fn, f.Type) {
			return unsupported(s, "aggregate function %q on column %q of type %s", fn, f.Name, f.Type)
		}
		c.puAggs[f.Name] = fn
	}
	c.aggs = map[string]string{}
	if v, ok := s.Options[OptPartialUpdateRemoveOnSeqGrp]; ok {
		if c.ignoreDelete {
			return fmt.Errorf("primary-key table (schema %d): ignore-delete and %s conflict", s.ID, OptPartialUpdateRemoveOnSeqGrp)
		}
		for _, name := range strings.Split(v, ",") {
			if !seqOf[name] {
				return fmt.Errorf("primary-key table (schema %d): field %q of %s is no sequence group field", s.ID, name, OptPartialUpdateRemoveOnSeqGrp)
			}
			c.removeOnSeqGroup[name] = true
		}
	}
	if c.removeOnDelete && c.ignoreDelete {
		return fmt.Errorf("primary-key table (schema %d): ignore-delete and %s conflict", s.ID, OptPartialUpdateRemoveOnDelete)
	}
	if c.removeOnDelete && len(c.groups) > 0 {
		return fmt.Errorf("primary-key table (schema %d): sequence-group and %s conflict", s.ID, OptPartialUpdateRemoveOnDelete)
	}
	return nil
}
