// Package paimon reads Apache Paimon tables: a catalog over a warehouse,
// tables, batch reads of a snapshot and streaming reads that follow a table's
// snapshots, returning Arrow record batches.
//
// The public sub-packages hold one concept each (fileio, types, schema,
// snapshot, predicate, consumer); the implementation lives under internal/.
// This package wires them into the API most callers need:
//
//	cat, _ := paimon.OpenCatalog(ctx, "/data/warehouse")
//	tbl, _ := cat.GetTable(ctx, "db.orders")
//	rb := tbl.NewReadBuilder().WithProjection("id", "amount")
//	plan, _ := rb.Plan(ctx)
//	rd := rb.NewRead()
//	for _, sp := range plan.Splits {
//		rr, _ := rd.Read(ctx, sp)
//		for rr.Next() { use(rr.RecordBatch()) }
//		rr.Release()
//	}
//
// A streaming read is described as plain data and opened in one call:
//
//	scan, rd, _ := tbl.NewStreamingScan(ctx, paimon.StreamConfig{ConsumerID: "c1", IncludeRowKind: true})
//	for {
//		p, _ := scan.Next(ctx) // io.EOF after an end bound
//		for _, sp := range p.Splits { rr, _ := rd.Read(ctx, sp); ...; rr.Release() }
//		scan.CommitConsumer(ctx, p.NextSnapshotID)
//	}
package paimon
