package paimon_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio/objstore"
	"github.com/connect-paimon/connect-paimon/paimon/predicate"
)

// The functions between the "snippet" markers are the Go examples of
// README.md and docs/streaming.md, verbatim: TestDocSnippetsCompile keeps
// the documents and this file equal, and the examples below run them on
// the committed demo warehouse.

// snippet: README.md
// readOrders reads two columns of the rows of region 'eu' at the latest
// snapshot of demo.orders.
func readOrders(ctx context.Context, warehouse string) (rows int64, err error) {
	cat, err := paimon.OpenCatalog(ctx, warehouse, paimon.WithStorageOptions(objstore.Options{Region: "eu-west-1"}))
	if err != nil {
		return 0, err
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		return 0, err
	}
	pred, err := predicate.Parse("region = 'eu'", tbl.Schema().Fields)
	if err != nil {
		return 0, err
	}
	rb := tbl.NewReadBuilder().WithProjection("id", "amount").WithFilter(pred)
	plan, err := rb.Plan(ctx)
	if err != nil {
		return 0, err
	}
	rd := rb.NewRead()
	for _, sp := range plan.Splits {
		rr, err := rd.Read(ctx, sp) // an arrow-go array.RecordReader
		if err != nil {
			return 0, err
		}
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return 0, err
		}
	}
	return rows, nil
}

// followOrders streams the table from plain data: the same struct the
// input and `tail` build. Without EndAtLatest it follows the table until
// ctx is done.
func followOrders(ctx context.Context, tbl *paimon.Table) error {
	scan, read, err := tbl.NewStreamingScan(ctx, paimon.StreamConfig{
		StartMode: paimon.StartLatestFull, ConsumerID: "c1", IncludeRowKind: true,
		Filter: "region = 'eu'", EndAtLatest: true,
	})
	if err != nil {
		return err
	}
	for {
		p, err := scan.Next(ctx) // blocks (polls) until there is a new snapshot
		if errors.Is(err, io.EOF) {
			return nil // the end bound was read
		}
		if err != nil {
			return err // paimon.IsPermanent(err) says whether a retry can help
		}
		var rows int64
		for _, sp := range p.Splits {
			rr, err := read.Read(ctx, sp)
			if err != nil {
				return err
			}
			for rr.Next() {
				rows += rr.RecordBatch().NumRows() // deliver the rows
			}
			rr.Release()
		}
		fmt.Printf("snapshot %d (full %t): %d rows\n", p.SnapshotID, p.FirstPlan, rows)
		// Only once every row before p.NextSnapshotID was delivered.
		if err := scan.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
			return err
		}
	}
}

// end snippet

// snippet: docs/streaming.md
func follow(ctx context.Context, tbl *paimon.Table) error {
	b := tbl.NewStreamReadBuilder().WithConsumerID("orders-sink").WithPollInterval(time.Second)
	s, err := b.NewStreamingScan(ctx)
	if err != nil {
		return err
	}
	rd := b.NewRead()
	for {
		p, err := s.Next(ctx) // blocks (polls) until there is a plan; io.EOF after an end bound
		if err != nil {
			return err
		}
		for _, sp := range p.Splits {
			rr, err := rd.Read(ctx, sp)
			if err != nil {
				return err
			}
			for rr.Next() {
				_ = rr.RecordBatch() // deliver the rows, wait for the acknowledgements
			}
			rr.Release()
		}
		if err := s.CommitConsumer(ctx, p.NextSnapshotID); err != nil {
			return err
		}
	}
}

// end snippet

// exampleWarehouse copies the committed demo warehouse to a temporary
// directory, so an example's consumer file does not land in the fixture.
func exampleWarehouse() (dir string, cleanup func()) {
	dir, err := os.MkdirTemp("", "paimon-example-")
	if err != nil {
		panic(err)
	}
	src := filepath.Join("..", "resources", "fixtures", "warehouse", "demo.db")
	if err := os.CopyFS(filepath.Join(dir, "demo.db"), os.DirFS(src)); err != nil {
		panic(err)
	}
	return dir, func() { os.RemoveAll(dir) }
}

// Example_readOrders runs README's library example on the demo warehouse.
func Example_readOrders() {
	wh, cleanup := exampleWarehouse()
	defer cleanup()
	rows, err := readOrders(context.Background(), wh)
	fmt.Println(rows, err)
	// Output: 65 <nil>
}

// Example_followOrders runs README's streaming example on the demo
// warehouse, and docs/streaming.md's until the table has nothing new.
func Example_followOrders() {
	wh, cleanup := exampleWarehouse()
	defer cleanup()
	ctx := context.Background()
	cat, err := paimon.OpenCatalog(ctx, wh)
	if err != nil {
		panic(err)
	}
	defer cat.Close()
	tbl, err := cat.GetTable(ctx, "demo.orders")
	if err != nil {
		panic(err)
	}
	fmt.Println(followOrders(ctx, tbl))
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	fmt.Println(follow(ctx, tbl))
	// Output:
	// snapshot 3 (full true): 65 rows
	// <nil>
	// context deadline exceeded
}
