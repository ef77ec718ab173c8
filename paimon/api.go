// Package paimon reads Apache Paimon tables: a catalog over a warehouse,
// tables, batch reads of a snapshot and streaming reads that follow a table's
// snapshots, returning Arrow record batches.
//
// The sub-packages hold one concept each (fileio, types, schema, snapshot,
// manifest, binrow, predicate, format, read, scan, consumer); this package
// wires them into the API most callers need:
//
//	cat, _ := paimon.OpenCatalog(ctx, "/data/warehouse")
//	tbl, _ := cat.GetTable(ctx, "db.orders")
//	rb := tbl.NewReadBuilder().WithProjection("id", "amount")
//	plan, _ := rb.NewScan().Plan(ctx)
//	rd := rb.NewRead()
//	for _, sp := range plan.Splits {
//		rr, _ := rd.Read(ctx, sp)
//		for rr.Next() { use(rr.RecordBatch()) }
//		rr.Release()
//	}
package paimon
