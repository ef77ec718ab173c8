package scan

import (
	"hash/fnv"

	"github.com/connect-paimon/connect-paimon/paimon/internal/manifest"
)

// Share is one of Count disjoint parts of a bucket-unaware table's data
// files: a file belongs to part hash(partition, file name) % Count. Every
// file of the table is in exactly one part, whichever reader computes it,
// so replicas that each read one part read every row once. Fixed-bucket
// tables are shared by bucket instead (BucketFilter): their buckets must
// stay whole, because a bucket's files are merged together.
type Share struct {
	Index, Count int
}

// Owns reports whether the entry's file is in this part. An ADD and the
// DELETE that later removes the same file hash alike.
func (s Share) Owns(e *manifest.Entry) bool {
	if s.Count <= 1 {
		return true
	}
	return FilePart(e.Partition, e.File.FileName, s.Count) == s.Index
}

// FilePart is the part of count that the data file name of the partition
// (its serialized BinaryRow) belongs to: FNV-1a (64 bit) over the partition
// bytes, a zero byte and the name, modulo count. The hash is fixed: replicas
// of different versions must agree on it.
func FilePart(partition []byte, name string, count int) int {
	h := fnv.New64a()
	h.Write(partition)
	h.Write([]byte{0})
	h.Write([]byte(name))
	return int(h.Sum64() % uint64(count))
}
