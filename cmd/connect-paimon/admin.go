package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/connect-paimon/connect-paimon/internal/readspec"
	"github.com/connect-paimon/connect-paimon/internal/suggest"
	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/consumer"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
)

// stdio is where the admin commands write. Benthos keeps its own writers
// private, so the commands carry theirs and tests capture output in memory.
type stdio struct {
	out, err io.Writer
}

// Flag names shared by every table command.
const (
	flagWarehouse       = "warehouse"
	flagCatalogURI      = "catalog-uri"
	flagCatalogToken    = "catalog-token"
	flagCatalogProvider = "catalog-token-provider"
	flagTable           = "table"
	flagBranch          = "branch"
	flagJSON            = "json"
	flagRegion          = "region"
	flagEndpoint        = "s3-endpoint"
	flagForcePathStyle  = "s3-force-path-style"
	flagAccessKeyID     = "access-key-id"
	flagSecretAccessKey = "secret-access-key"
	flagSessionToken    = "session-token"
	flagProfile         = "profile"
	flagRoleARN         = "role-arn"
	flagRoleExternalID  = "role-external-id"
	flagAnonymous       = "anonymous"
	flagFromEC2Role     = "from-ec2-role"
	flagGCSCredentials  = "gcs-credentials-file"
	flagMaxRetries      = "max-retries"
	flagRequestTimeout  = "request-timeout"
)

// adminCommands returns the table administration subcommands added beside
// Benthos' own (run, lint, echo, list, ...): `paimon consumers ...`,
// `paimon snapshots` and `paimon tail`. The tree is built per call because
// urfave flags hold parse state.
func adminCommands(sio stdio) []*cli.Command {
	return []*cli.Command{{
		Name:  "paimon",
		Usage: "Discover, inspect and administer Apache Paimon tables (databases, tables, describe, files, consumers, snapshots, tail, group)",
		Description: `Every subcommand takes the same flags for the same things:
  --warehouse/-w          the warehouse (a path or URL; the warehouse name with --catalog-uri)
  --catalog-uri, ...      Paimon's REST catalog instead of a warehouse path
  --region, ...           storage flags for object stores
  DATABASE.TABLE          the table, as the first argument or --table/-t (all but databases and tables)
  --branch                the table's branch (default main)
  --format table|json     a table for people (default) or JSON for scripts (--json is short for --format json)
Flags may follow positional arguments: "consumers reset demo.orders ID --next 5".`,
		Before: func(c *cli.Context) error {
			// Help and usage errors of the subtree go where the commands
			// write, not to the app's process-wide writers.
			if sio.out != nil {
				c.App.Writer = sio.out
			}
			if sio.err != nil {
				c.App.ErrWriter = sio.err
			}
			return nil
		},
		Subcommands: withUsageErrors(append(discoveryCommands(sio),
			consumersCommand(sio),
			snapshotsCommand(sio),
			tailCommand(sio),
			groupCommand(sio),
		)),
	}}
}

// usageError is a flag error in one line: the command, the flag, the
// nearest flags the command has.
func usageError(c *cli.Context, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
		hint := ""
		if near := suggest.Nearest(name, names, 3); len(near) > 0 {
			hint = "; did you mean --" + strings.Join(near, ", --") + "?"
		}
		return fmt.Errorf("%s: unknown flag --%s%s (--help lists the flags)", commandPath(c), name, hint)
	}
	return fmt.Errorf("%s: %s (--help lists the flags)", commandPath(c), msg)
}

// withUsageErrors makes a flag error of every command one line naming the
// flag and the nearest ones the command has, instead of urfave's page of
// help.
func withUsageErrors(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		withUsageErrors(cmd.Subcommands)
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error { return usageError(c, err) }
	}
	return cmds
}

// tableFlags are the flags of every leaf command: the table address and the
// storage options, named like the AWS CLI where a counterpart exists.
func tableFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagWarehouse, Aliases: []string{"w"}, EnvVars: []string{"PAIMON_WAREHOUSE"}, Usage: "warehouse root: a local path or s3://, gs://, azblob:// URL"},
		&cli.StringFlag{Name: flagTable, Aliases: []string{"t"}, EnvVars: []string{"PAIMON_TABLE"}, Usage: "table as `database.table`"},
		&cli.StringFlag{Name: flagBranch, Value: "main", Usage: "table branch"},
		&cli.StringFlag{Name: flagCatalogURI, EnvVars: []string{"PAIMON_REST_URI"}, Usage: "open the table through Paimon's REST catalog at this URI (--warehouse is then the server's warehouse name)", Category: "REST catalog"},
		&cli.StringFlag{Name: flagCatalogToken, EnvVars: []string{"PAIMON_REST_TOKEN"}, Usage: "REST catalog bearer token", Category: "REST catalog"},
		&cli.StringFlag{Name: flagCatalogProvider, Usage: "REST catalog token.provider (bear; dlf is refused)", Category: "REST catalog"},
		&cli.StringFlag{Name: flagRegion, Usage: "object store region (S3)", Category: "storage"},
		&cli.StringFlag{Name: flagEndpoint, Aliases: []string{"endpoint"}, Usage: "S3-compatible endpoint URL (MinIO, versitygw, ...)", Category: "storage"},
		&cli.BoolFlag{Name: flagForcePathStyle, Usage: "address buckets as endpoint/bucket (most S3-compatible stores)", Category: "storage"},
		&cli.StringFlag{Name: flagAccessKeyID, EnvVars: []string{"AWS_ACCESS_KEY_ID"}, Usage: "static access key id", Category: "storage"},
		&cli.StringFlag{Name: flagSecretAccessKey, EnvVars: []string{"AWS_SECRET_ACCESS_KEY"}, Usage: "static secret access key", Category: "storage"},
		&cli.StringFlag{Name: flagSessionToken, EnvVars: []string{"AWS_SESSION_TOKEN"}, Usage: "session token of temporary credentials", Category: "storage"},
		&cli.StringFlag{Name: flagProfile, Usage: "shared-config profile for the default credential chain", Category: "storage"},
		&cli.StringFlag{Name: flagRoleARN, Usage: "role to assume on top of the credentials", Category: "storage"},
		&cli.StringFlag{Name: flagRoleExternalID, Usage: "external id of the role to assume", Category: "storage"},
		&cli.BoolFlag{Name: flagAnonymous, Usage: "send unsigned requests (public buckets); static keys from the environment are ignored", Category: "storage"},
		&cli.BoolFlag{Name: flagFromEC2Role, Usage: "use the EC2 instance's IAM role (the input's storage.credentials.from_ec2_role)", Category: "storage"},
		&cli.StringFlag{Name: flagGCSCredentials, Usage: "Google credentials JSON file for gs:// (the input's storage.gcs.credentials_file)", Category: "storage"},
		&cli.IntFlag{Name: flagMaxRetries, Value: 5, Usage: "retries of one storage operation after transient failures, 0 for none", Category: "storage"},
		&cli.DurationFlag{Name: flagRequestTimeout, Value: 60 * time.Second, Usage: "bound of one storage request attempt, 0 for none", Category: "storage"},
	}
}

// tableJSONFlags are the flags of an admin command on one table: the table
// flags, the command's own, and the output format last.
func tableJSONFlags(extra ...cli.Flag) []cli.Flag {
	return withFormatFlag(append(tableFlags(), extra...))
}

// storageOptions maps the storage flags to objstore.Options. The CLI spells
// "no retries" and "no timeout" as 0, which Options spells as negative
// (its 0 means "default").
func storageOptions(c *cli.Context) (objstore.Options, error) {
	o := objstore.Options{
		Region:          c.String(flagRegion),
		Endpoint:        c.String(flagEndpoint),
		ForcePathStyle:  c.Bool(flagForcePathStyle),
		AccessKeyID:     c.String(flagAccessKeyID),
		SecretAccessKey: c.String(flagSecretAccessKey),
		SessionToken:    c.String(flagSessionToken),
		Profile:         c.String(flagProfile),
		RoleARN:         c.String(flagRoleARN),
		RoleExternalID:  c.String(flagRoleExternalID),
		Anonymous:       c.Bool(flagAnonymous),
		FromEC2Role:     c.Bool(flagFromEC2Role),

		GCSCredentialsFile: c.String(flagGCSCredentials),
	}
	if (o.AccessKeyID == "") != (o.SecretAccessKey == "") {
		return o, fmt.Errorf("--%s and --%s must be given together", flagAccessKeyID, flagSecretAccessKey)
	}
	if o.RoleExternalID != "" && o.RoleARN == "" {
		return o, fmt.Errorf("--%s needs --%s", flagRoleExternalID, flagRoleARN)
	}
	if o.Anonymous && (o.Profile != "" || o.RoleARN != "") {
		return o, fmt.Errorf("--%s excludes --%s and --%s", flagAnonymous, flagProfile, flagRoleARN)
	}
	if o.FromEC2Role && o.Anonymous {
		return o, fmt.Errorf("--%s excludes --%s", flagFromEC2Role, flagAnonymous)
	}
	if o.FromEC2Role {
		// The role is the explicit request; keys (perhaps from AWS_*
		// variables set for other tools) are not used.
		o.AccessKeyID, o.SecretAccessKey, o.SessionToken = "", "", ""
	}
	if o.Anonymous {
		// Static keys may come from AWS_* variables set for other tools;
		// --anonymous is the explicit request, so it wins over them.
		o.AccessKeyID, o.SecretAccessKey, o.SessionToken = "", "", ""
	}
	switch n := c.Int(flagMaxRetries); {
	case n < 0:
		return o, fmt.Errorf("--%s must not be negative, got %d", flagMaxRetries, n)
	case n == 0:
		o.MaxRetries = -1
	default:
		o.MaxRetries = n
	}
	switch d := c.Duration(flagRequestTimeout); {
	case d < 0:
		return o, fmt.Errorf("--%s must not be negative, got %s", flagRequestTimeout, d)
	case d == 0:
		o.RequestTimeout = -1
	default:
		o.RequestTimeout = d
	}
	return o, nil
}

// openedTable is a table plus the catalog to close after use.
type openedTable struct {
	tbl *paimon.Table
	cat *paimon.Catalog
}

// Close closes the catalog's storage client.
func (o *openedTable) Close() { _ = o.cat.Close() }

// openCatalog opens the warehouse (or REST catalog) the flags address:
// the one way every subcommand opens it.
func openCatalog(ctx context.Context, c *cli.Context) (*paimon.Catalog, error) {
	wh := c.String(flagWarehouse)
	rest := c.String(flagCatalogURI) != ""
	if wh == "" && !rest {
		return nil, fmt.Errorf("--%s is required (or PAIMON_WAREHOUSE)", flagWarehouse)
	}
	opts, err := storageOptions(c)
	if err != nil {
		return nil, err
	}
	copts := []paimon.CatalogOption{paimon.WithStorageOptions(opts)}
	if rest {
		copts = append(copts, paimon.WithREST(map[string]string{
			"uri": c.String(flagCatalogURI), "token": c.String(flagCatalogToken), "token.provider": c.String(flagCatalogProvider),
		}))
	}
	return paimon.OpenCatalog(ctx, wh, copts...)
}

// openTable opens the table the flags address. Errors name the table and
// the warehouse, because the warehouse may come from the environment.
func openTable(ctx context.Context, c *cli.Context) (*openedTable, error) {
	name := c.String(flagTable)
	if name == "" {
		return nil, fmt.Errorf("%s needs a table: DATABASE.TABLE as its first argument, or --%s (or PAIMON_TABLE)", commandPath(c), flagTable)
	}
	cat, err := openCatalog(ctx, c)
	if err != nil {
		return nil, err
	}
	out := &openedTable{cat: cat}
	var topts []paimon.TableOption
	if b := c.String(flagBranch); b != "" && b != "main" {
		topts = append(topts, paimon.WithBranch(b))
	}
	tbl, err := cat.GetTable(ctx, name, topts...)
	if err != nil {
		// The library's error names the table and what exists instead.
		out.Close()
		return nil, fmt.Errorf("warehouse %s: %w", c.String(flagWarehouse), err)
	}
	out.tbl = tbl
	return out, nil
}

// consumers returns the consumer manager of the opened table's branch.
func (o *openedTable) consumers() *consumer.Manager { return o.tbl.Consumers() }

// interspersed returns the positional arguments of a leaf command and
// applies flags written after them. urfave/cli v2 stops parsing flags at the
// first positional argument, which would make "reset ID --next 5" read
// "--next" as an argument; here the rest is parsed with the command's own
// flag definitions and copied into the context.
func interspersed(c *cli.Context) ([]string, error) {
	args := c.Args().Slice()
	var pos []string
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		fs := flag.NewFlagSet(c.Command.Name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		byName := map[string]cli.Flag{}
		for _, f := range c.Command.Flags {
			if err := f.Apply(fs); err != nil {
				return nil, err
			}
			for _, n := range f.Names() {
				byName[n] = f
			}
		}
		if err := fs.Parse(args); err != nil {
			return nil, usageError(c, err)
		}
		var setErr error
		fs.Visit(func(f *flag.Flag) {
			// urfave keeps one value per alias and syncs them only in its own
			// parse, so every name of the flag gets the value. A list flag's
			// String is "[a b]": its elements are set one by one.
			vals := []string{f.Value.String()}
			switch v := f.Value.(type) {
			case *cli.StringSlice:
				vals = v.Value()
			case *cli.IntSlice:
				vals = vals[:0]
				for _, i := range v.Value() {
					vals = append(vals, strconv.Itoa(i))
				}
			}
			for _, n := range byName[f.Name].Names() {
				for _, val := range vals {
					if err := c.Set(n, val); err != nil && setErr == nil {
						setErr = err
					}
				}
			}
		})
		if setErr != nil {
			return nil, setErr
		}
		args = fs.Args()
		if c.Bool("help") {
			// "-h" after an argument: urfave only checks it before them.
			if err := cli.ShowSubcommandHelp(c); err != nil {
				return nil, err
			}
			return nil, errHelpShown
		}
	}
	// Every subcommand's output format, checked before anything is opened.
	if _, err := outputFormat(c); err != nil {
		return nil, err
	}
	return pos, nil
}

// errHelpShown stops a command after interspersed printed its help; the
// action then succeeds, as urfave's own --help does.
var errHelpShown = errors.New("help shown")

func helpShown(err error) error {
	if errors.Is(err, errHelpShown) {
		return nil
	}
	return err
}

// action adapts a command's run function to urfave, with help shown by
// interspersed counting as success.
func action(sio stdio, run func(*cli.Context, stdio) error) cli.ActionFunc {
	return func(c *cli.Context) error { return helpShown(run(c, sio)) }
}

// commandPath names the running command as typed ("paimon consumers get"):
// urfave's FullName lacks the parents of nested subcommands.
func commandPath(c *cli.Context) string {
	var names []string
	for _, cc := range c.Lineage() {
		if cc.Command != nil && cc.Command.Name != "" {
			names = append([]string{cc.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// exactArgs checks the positional argument count of a command that takes
// no table, naming what is expected.
func exactArgs(c *cli.Context, n int, what string) ([]string, error) {
	pos, err := interspersed(c)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		if n == 0 {
			return nil, fmt.Errorf("%s takes no arguments, got %q", commandPath(c), pos)
		}
		return nil, fmt.Errorf("%s needs %s, got %d arguments %q", commandPath(c), what, len(pos), pos)
	}
	return pos, nil
}

// tableArgs checks the positional arguments of a command on one table: the
// table (DATABASE.TABLE) may come first, else it is --table; n arguments
// (what) follow it.
func tableArgs(c *cli.Context, n int, what string) ([]string, error) {
	pos, err := interspersed(c)
	if err != nil {
		return nil, err
	}
	if len(pos) == n+1 {
		if t := c.String(flagTable); c.IsSet(flagTable) && t != pos[0] {
			return nil, fmt.Errorf("%s: table %q and --%s %q disagree", commandPath(c), pos[0], flagTable, t)
		}
		if err := c.Set(flagTable, pos[0]); err != nil {
			return nil, err
		}
		pos = pos[1:]
	}
	if len(pos) != n {
		if n == 0 {
			return nil, fmt.Errorf("%s takes one argument, the table DATABASE.TABLE (or --%s), got %d arguments %q", commandPath(c), flagTable, len(pos), pos)
		}
		return nil, fmt.Errorf("%s needs %s: %s %s (the table as the first argument or --%s), got %d arguments %q", commandPath(c), what, commandPath(c), c.Command.ArgsUsage, flagTable, len(pos), pos)
	}
	return pos, nil
}

// --- consumers ----------------------------------------------------------------

// consumerJSON is the machine form of a consumer, named like the columns of
// Paimon's $consumers system table.
type consumerJSON struct {
	ConsumerID     string `json:"consumer_id"`
	NextSnapshotID int64  `json:"next_snapshot_id"`
}

func consumersCommand(sio stdio) *cli.Command {
	// Every consumers subcommand takes the table and the format flags.
	sub := func(name, args, usage string, run func(*cli.Context, stdio) error, flags ...cli.Flag) *cli.Command {
		return &cli.Command{Name: name, Usage: usage, ArgsUsage: args, Flags: tableJSONFlags(flags...), Action: action(sio, run)}
	}
	return &cli.Command{
		Name:  "consumers",
		Usage: "List, read, move and delete the table's consumers (consumer/consumer-<id> files)",
		Subcommands: []*cli.Command{
			sub("list", "[DATABASE.TABLE]", "List every consumer and its next snapshot", consumersList),
			sub("get", "[DATABASE.TABLE] ID", "Print one consumer's next snapshot", consumersGet),
			sub("reset", "[DATABASE.TABLE] ID --next N",
				"Set a consumer's next snapshot (creates the consumer); the snapshot must exist unless --force", consumersReset,
				&cli.Int64Flag{Name: "next", Usage: "the snapshot the consumer reads next"},
				&cli.BoolFlag{Name: "force", Usage: "write the position even if snapshot N does not exist (yet, or any more)"}),
			sub("delete", "[DATABASE.TABLE] ID", "Delete a consumer, releasing the snapshots it held", consumersDelete),
			sub("expire", "[DATABASE.TABLE]",
				"Delete consumers not written since a time (what writers do with consumer.expiration-time)", consumersExpire,
				&cli.StringFlag{Name: "before", Usage: "delete consumers last written before this time: RFC 3339, or a date (midnight UTC)"},
				&cli.DurationFlag{Name: "older-than", Usage: "delete consumers last written longer ago than this"}),
			sub("clear", "[DATABASE.TABLE]",
				"Delete the consumers whose id fully matches --including and not --excluding (Java's clear_consumers)", consumersClear,
				&cli.StringFlag{Name: "including", Usage: "regular expression (RE2, full match) of the ids to delete"},
				&cli.StringFlag{Name: "excluding", Usage: "regular expression (RE2, full match) of the ids to keep"},
				&cli.BoolFlag{Name: "all", Usage: "delete every consumer (instead of --including)"}),
		},
	}
}

func consumersList(c *cli.Context, sio stdio) error {
	if _, err := tableArgs(c, 0, ""); err != nil {
		return err
	}
	ot, err := openTable(c.Context, c)
	if err != nil {
		return err
	}
	defer ot.Close()
	all, err := ot.consumers().Consumers(c.Context)
	if err != nil {
		return fmt.Errorf("table %s: %w", ot.tbl.Name(), err)
	}
	ids := slices.Sorted(maps.Keys(all))
	rows := make([]consumerJSON, len(ids))
	for i, id := range ids {
		rows[i] = consumerJSON{ConsumerID: id, NextSnapshotID: all[id]}
	}
	if wantJSON(c) {
		return writeJSON(sio.out, rows)
	}
	return writeConsumerTable(sio.out, rows)
}

func writeConsumerTable(w io.Writer, rows []consumerJSON) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "CONSUMER\tNEXT_SNAPSHOT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\n", r.ConsumerID, r.NextSnapshotID)
	}
	return tw.Flush()
}

// consumerArg validates the consumer id argument before any storage call,
// so a hostile id ("../x", "a/b") never becomes a path.
func consumerArg(c *cli.Context, extra string) (string, error) {
	what := "a consumer id"
	if extra != "" {
		what += " " + extra
	}
	pos, err := tableArgs(c, 1, what)
	if err != nil {
		return "", err
	}
	if err := consumer.ValidateID(pos[0]); err != nil {
		return "", err
	}
	return pos[0], nil
}

func consumersGet(c *cli.Context, sio stdio) error {
	ot, id, cons, err := openConsumer(c)
	if err != nil {
		return err
	}
	defer ot.Close()
	row := consumerJSON{ConsumerID: id, NextSnapshotID: cons.NextSnapshot}
	if wantJSON(c) {
		return writeJSON(sio.out, row)
	}
	return writeConsumerTable(sio.out, []consumerJSON{row})
}

// openConsumer opens the table of a get or delete and reads the consumer
// it names. A missing consumer is an error, unlike Manager.Delete: a typo
// in an admin command should not look like success.
func openConsumer(c *cli.Context) (*openedTable, string, consumer.Consumer, error) {
	var none consumer.Consumer
	id, err := consumerArg(c, "")
	if err != nil {
		return nil, "", none, err
	}
	ot, err := openTable(c.Context, c)
	if err != nil {
		return nil, "", none, err
	}
	cons, ok, err := ot.consumers().Consumer(c.Context, id)
	switch {
	case err != nil:
		err = fmt.Errorf("table %s: %w", ot.tbl.Name(), err)
	case !ok:
		err = missingConsumer(c.Context, ot, id)
	}
	if err != nil {
		ot.Close()
		return nil, "", none, err
	}
	return ot, id, cons, nil
}

func consumersReset(c *cli.Context, sio stdio) error {
	id, err := consumerArg(c, "and --next N")
	if err != nil {
		return err
	}
	if !c.IsSet("next") {
		return errors.New("consumers reset needs --next N, the snapshot the consumer reads next")
	}
	next := c.Int64("next")
	if next < 1 {
		return fmt.Errorf("--next must be at least 1, got %d", next)
	}
	ot, err := openTable(c.Context, c)
	if err != nil {
		return err
	}
	defer ot.Close()
	if !c.Bool("force") {
		// As Flink's reset_consumer procedure: the position must name a
		// snapshot that exists, or the consumer would fail (expired) or wait
		// for a snapshot that may never come.
		// A long-lived changelog (its snapshot expired) is a valid position.
		ok, err := ot.tbl.History().Exists(c.Context, next)
		if err != nil {
			return fmt.Errorf("table %s: %w", ot.tbl.Name(), err)
		}
		if !ok {
			return fmt.Errorf("table %s: snapshot %d does not exist (%s); use --force to write it anyway",
				ot.tbl.Name(), next, snapshotRange(c.Context, ot.tbl))
		}
	}
	m := ot.consumers()
	if err := m.Reset(c.Context, id, consumer.Consumer{NextSnapshot: next}); err != nil {
		return fmt.Errorf("table %s: %w", ot.tbl.Name(), err)
	}
	row := consumerJSON{ConsumerID: id, NextSnapshotID: next}
	if wantJSON(c) {
		return writeJSON(sio.out, row)
	}
	return writeConsumerTable(sio.out, []consumerJSON{row})
}

// missingConsumer is the error of a consumer id that does not exist: the
// nearest existing ids, or the list of them.
func missingConsumer(ctx context.Context, ot *openedTable, id string) error {
	all, err := ot.consumers().Consumers(ctx)
	if err != nil {
		return fmt.Errorf("table %s: consumer %q does not exist", ot.tbl.Name(), id)
	}
	ids := make([]string, 0, len(all))
	for k := range all {
		ids = append(ids, k)
	}
	return fmt.Errorf("table %s: consumer %q does not exist%s", ot.tbl.Name(), id, suggest.Hint(id, ids, "consumers"))
}

// snapshotRange describes the snapshots a table holds, for error messages.
func snapshotRange(ctx context.Context, tbl *paimon.Table) string {
	sm := tbl.Snapshots()
	lo, okLo, err1 := sm.EarliestID(ctx)
	hi, okHi, err2 := sm.LatestID(ctx)
	switch {
	case err1 != nil || err2 != nil:
		return "the snapshot range is unknown"
	case !okLo || !okHi:
		return "the table has no snapshot"
	}
	if from, ok, err := tbl.History().EarliestID(ctx); err == nil && ok && from < lo {
		return fmt.Sprintf("the table holds long-lived changelogs from %d and snapshots %d..%d", from, lo, hi)
	}
	return fmt.Sprintf("the table holds snapshots %d..%d", lo, hi)
}

func consumersDelete(c *cli.Context, sio stdio) error {
	ot, id, _, err := openConsumer(c)
	if err != nil {
		return err
	}
	defer ot.Close()
	if err := ot.consumers().Delete(c.Context, id); err != nil {
		return fmt.Errorf("table %s: %w", ot.tbl.Name(), err)
	}
	return writeDeleted(c, sio, []string{id})
}

func consumersExpire(c *cli.Context, sio stdio) error {
	if _, err := tableArgs(c, 0, ""); err != nil {
		return err
	}
	var before time.Time
	switch {
	case c.IsSet("before") && c.IsSet("older-than"):
		return errors.New("consumers expire: --before and --older-than are mutually exclusive")
	case c.IsSet("before"):
		t, err := readspec.ParseTime(c.String("before"))
		if err != nil {
			return fmt.Errorf("--before: %w", err)
		}
		before = t
	case c.IsSet("older-than"):
		d := c.Duration("older-than")
		if d <= 0 {
			return fmt.Errorf("--older-than must be positive, got %s", d)
		}
		before = time.Now().Add(-d)
	default:
		return errors.New("consumers expire needs --before TIME or --older-than DURATION")
	}
	ot, err := openTable(c.Context, c)
	if err != nil {
		return err
	}
	defer ot.Close()
	deleted, err := ot.consumers().Expire(c.Context, before)
	if err != nil {
		return fmt.Errorf("table %s: %w (deleted before the failure: %q)", ot.tbl.Name(), err, deleted)
	}
	return writeDeleted(c, sio, deleted)
}

func consumersClear(c *cli.Context, sio stdio) error {
	if _, err := tableArgs(c, 0, ""); err != nil {
		return err
	}
	var incl, excl *regexp.Regexp
	switch {
	case c.Bool("all") && c.IsSet("including"):
		return errors.New("consumers clear: --all and --including are mutually exclusive")
	case c.IsSet("including"):
		re, err := regexp.Compile(c.String("including"))
		if err != nil {
			return fmt.Errorf("--including: %w", err)
		}
		incl = re
	case !c.Bool("all"):
		// Clearing every consumer releases every snapshot to expiry; make the
		// user say so.
		return errors.New("consumers clear needs --including REGEX, or --all to delete every consumer")
	}
	if c.IsSet("excluding") {
		re, err := regexp.Compile(c.String("excluding"))
		if err != nil {
			return fmt.Errorf("--excluding: %w", err)
		}
		excl = re
	}
	ot, err := openTable(c.Context, c)
	if err != nil {
		return err
	}
	defer ot.Close()
	deleted, err := ot.consumers().Clear(c.Context, incl, excl)
	if err != nil {
		return fmt.Errorf("table %s: %w (deleted before the failure: %q)", ot.tbl.Name(), err, deleted)
	}
	return writeDeleted(c, sio, deleted)
}

func writeDeleted(c *cli.Context, sio stdio, ids []string) error {
	if ids == nil {
		ids = []string{}
	}
	if wantJSON(c) {
		return writeJSON(sio.out, map[string][]string{"deleted": ids})
	}
	tw := newTable(sio.out)
	fmt.Fprintln(tw, "DELETED_CONSUMER")
	for _, id := range ids {
		fmt.Fprintln(tw, id)
	}
	return tw.Flush()
}

// --- snapshots ----------------------------------------------------------------

// snapshotJSON is the machine form of a snapshot, named like the columns of
// Paimon's $snapshots system table. Record counts are null when the writer
// did not store them.
type snapshotJSON struct {
	SnapshotID       int64  `json:"snapshot_id"`
	CommitKind       string `json:"commit_kind"`
	CommitTime       string `json:"commit_time"`
	TotalRecordCount *int64 `json:"total_record_count"`
	DeltaRecordCount *int64 `json:"delta_record_count"`
	SchemaID         int64  `json:"schema_id"`
}

func snapshotsCommand(sio stdio) *cli.Command {
	return &cli.Command{
		Name:      "snapshots",
		Usage:     "List the table's snapshots: id, commit kind, commit time, records, schema",
		ArgsUsage: "[DATABASE.TABLE]",
		Flags: tableJSONFlags(
			&cli.IntFlag{Name: "limit", Usage: "show only the newest N snapshots, 0 for all"},
		),
		Action: action(sio, snapshotsList),
	}
}

func snapshotsList(c *cli.Context, sio stdio) error {
	if _, err := tableArgs(c, 0, ""); err != nil {
		return err
	}
	limit := c.Int("limit")
	if limit < 0 {
		return fmt.Errorf("--limit must not be negative, got %d", limit)
	}
	ot, err := openTable(c.Context, c)
	if err != nil {
		return err
	}
	defer ot.Close()
	sm := ot.tbl.Snapshots()
	ids, err := sm.ListIDs(c.Context)
	if err != nil {
		return fmt.Errorf("table %s: %w", ot.tbl.Name(), err)
	}
	if limit > 0 && len(ids) > limit {
		ids = ids[len(ids)-limit:]
	}
	rows := make([]snapshotJSON, 0, len(ids))
	for _, id := range ids {
		s, err := sm.Snapshot(c.Context, id)
		if err != nil {
			if fileio.IsNotExist(err) {
				continue // expired between listing and reading
			}
			return fmt.Errorf("table %s: %w", ot.tbl.Name(), err)
		}
		rows = append(rows, snapshotJSON{
			SnapshotID:       s.ID,
			CommitKind:       string(s.CommitKind),
			CommitTime:       formatMillis(s.TimeMillis),
			TotalRecordCount: s.TotalRecordCount,
			DeltaRecordCount: s.DeltaRecordCount,
			SchemaID:         s.SchemaID,
		})
	}
	if wantJSON(c) {
		return writeJSON(sio.out, rows)
	}
	tw := newTable(sio.out)
	fmt.Fprintln(tw, "ID\tKIND\tTIME\tTOTAL_RECORDS\tDELTA_RECORDS\tSCHEMA_ID")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\n", r.SnapshotID, r.CommitKind, r.CommitTime,
			optInt(r.TotalRecordCount), optInt(r.DeltaRecordCount), r.SchemaID)
	}
	return tw.Flush()
}

// formatMillis renders a commit time in UTC with millisecond precision,
// the precision Paimon stores.
func formatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

func optInt(v *int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(*v, 10)
}

// --- output helpers -------------------------------------------------------------

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
