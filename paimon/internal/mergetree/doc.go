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
