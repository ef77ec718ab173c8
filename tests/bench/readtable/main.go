// Command readtable reads a whole table (optionally one snapshot and a
// projection) through the library and prints the row count. It exists so
// the peak RSS of a read can be measured in a process of its own, e.g.
//
//	/usr/bin/time -v go run ./tests/bench/readtable -warehouse W -table bench.wide -snapshot 4
//
// With -repeat N it reads N times and prints, per read, the process's
// user+sys CPU spent on it (getrusage) and CPU-µs per row: the figure
// resources/bench/cpu_per_row.sh compares with pypaimon's to_arrow.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/connect-paimon/connect-paimon/paimon"
)

func main() {
	warehouse := flag.String("warehouse", "", "warehouse directory")
	table := flag.String("table", "", "db.table")
	snap := flag.Int64("snapshot", 0, "snapshot id (0: latest)")
	proj := flag.String("columns", "", "comma-separated projection (empty: all columns)")
	repeat := flag.Int("repeat", 1, "read the table this many times, printing each read's CPU")
	flag.Parse()
	for i := 0; i < *repeat; i++ {
		c0 := cpuTime()
		n, err := run(context.Background(), *warehouse, *table, *snap, *proj)
		if err != nil {
			fmt.Fprintln(os.Stderr, "readtable:", err)
			os.Exit(1)
		}
		if *repeat == 1 {
			fmt.Printf("rows=%d\n", n)
			continue
		}
		cpu := cpuTime() - c0
		fmt.Printf("rows=%d cpu_s=%.3f cpu_us_per_row=%.3f\n", n, cpu.Seconds(), float64(cpu.Microseconds())/float64(n))
	}
}

// cpuTime is the process's user+sys CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func run(ctx context.Context, warehouse, table string, snap int64, proj string) (int64, error) {
	cat, err := paimon.OpenCatalog(ctx, warehouse)
	if err != nil {
		return 0, err
	}
	t, err := cat.GetTable(ctx, table)
	if err != nil {
		return 0, err
	}
	rb := t.NewReadBuilder().WithSnapshot(snap)
	if proj != "" {
		rb = rb.WithProjection(strings.Split(proj, ",")...)
	}
	plan, err := rb.Plan(ctx)
	if err != nil {
		return 0, err
	}
	rd := rb.NewRead()
	var rows int64
	for _, sp := range plan.Splits {
		rr, err := rd.Read(ctx, sp)
		if err != nil {
			return 0, err
		}
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return 0, fmt.Errorf("read split of %s: %w", table, err)
		}
	}
	return rows, nil
}
