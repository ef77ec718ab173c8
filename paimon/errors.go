package paimon

import (
	"errors"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/internal/restcatalog"
	"github.com/connect-paimon/connect-paimon/paimon/internal/stream"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// ErrExpired is wrapped by the error a streaming scan returns when its next
// snapshot was expired and the policy is ExpiredFail.
var ErrExpired = stream.ErrExpired

// ErrRecreated is wrapped when a streaming scan's position is beyond
// latest+1: the table was most likely dropped and recreated.
var ErrRecreated = stream.ErrRecreated

// ErrConsumerConflict is wrapped when the consumer file holds a position
// the scan neither wrote nor resumed from: another writer uses the id.
var ErrConsumerConflict = stream.ErrConsumerConflict

// FieldError is a StreamConfig validation error; Field is the Go name of
// the offending StreamConfig field, so callers that fill the struct from
// their own configuration can name their own field instead.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

// IsPermanent reports whether retrying the operation that returned err
// cannot succeed: an invalid configuration (*FieldError, a filter that does
// not parse or names no column), a missing table, warehouse, branch or file,
// a feature the reader refuses (types.ErrUnsupported), corrupt metadata
// (types.ErrCorrupt), or a position that is gone (ErrExpired, ErrRecreated), a consumer another
// writer uses (ErrConsumerConflict), a REST catalog's refusal (401, 403, 404, 409 and
// other 4xx but 408/429, 501), malformed answer or invalid catalog option.
// Everything else — I/O errors, timeouts, 5xx answers after the object
// store's own retries — is transient: a caller retries it with back-off.
// An unknown error is transient on purpose: retrying a permanent one costs
// log lines, stopping on a transient one would stop a healthy pipeline.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	var fe *FieldError
	return errors.As(err, &fe) ||
		errors.Is(err, predicate.ErrInvalid) ||
		errors.Is(err, fileio.ErrNotExist) ||
		errors.Is(err, types.ErrUnsupported) ||
		errors.Is(err, types.ErrCorrupt) ||
		errors.Is(err, ErrExpired) ||
		errors.Is(err, ErrRecreated) ||
		errors.Is(err, ErrConsumerConflict) ||
		restcatalog.IsPermanent(err)
}
