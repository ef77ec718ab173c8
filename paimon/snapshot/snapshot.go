// Package snapshot names a table's snapshots and their managers: the
// snapshot/snapshot-N JSON a commit writes, the latest/earliest lookups
// (Table.Snapshots) and the history that includes long-lived changelogs
// (Table.History). The reader's implementation lives in
// paimon/internal/snapshot.
package snapshot

import isnapshot "github.com/connect-paimon/connect-paimon/paimon/internal/snapshot"

// Snapshot is one committed snapshot.
type Snapshot = isnapshot.Snapshot

// Manager finds and reads a table's snapshots (Table.Snapshots).
type Manager = isnapshot.Manager

// History reads snapshots and long-lived changelogs alike (Table.History).
type History = isnapshot.History
