package restcatalog

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

// ErrUnsupported is types.ErrUnsupported: a catalog feature the reader does
// not implement (DLF signing).
var ErrUnsupported = types.ErrUnsupported

// Error is a failed catalog request: the server's answer (status, its
// ErrorResponse message and resource) or an answer that could not be used
// (Malformed), with the operation and endpoint it came from.
type Error struct {
	// Op says what was asked ("get table db.t").
	Op string
	// Endpoint is the method and path ("GET /v1/p/databases/db/tables/t").
	Endpoint string
	// Status is the HTTP status (0 when none was received).
	Status int
	// Message is the server's message or the decoding problem.
	Message string
	// ResourceType and ResourceName come from the server's ErrorResponse
	// ("TABLE", "SNAPSHOT"…).
	ResourceType, ResourceName string
	// RequestID is the server's x-request-id, for its operators.
	RequestID string
	// Malformed marks a 2xx answer whose body is not what the API
	// specifies: a server bug, not worth retrying.
	Malformed bool
}

func (e *Error) Error() string {
	what := ""
	switch {
	case e.Malformed:
		what = "bad answer"
	case e.Status == http.StatusUnauthorized:
		what = "401 not authorized (check the token)"
	case e.Status == http.StatusForbidden:
		what = "403 forbidden"
	case e.Status == http.StatusNotFound:
		what = "404 not found"
	case e.Status == http.StatusConflict:
		what = "409 conflict"
	default:
		what = fmt.Sprintf("HTTP %d", e.Status)
	}
	msg := fmt.Sprintf("rest catalog: %s (%s): %s", e.Op, e.Endpoint, what)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.ResourceType != "" || e.ResourceName != "" {
		msg += fmt.Sprintf(" [%s %s]", e.ResourceType, e.ResourceName)
	}
	if e.RequestID != "" {
		msg += " requestId:" + e.RequestID
	}
	return msg
}

// HTTPStatusCode lets objstore's retry classify the status (408, 429
// and 5xx but 501 are retried), so the catalog retries exactly as storage.
func (e *Error) HTTPStatusCode() int {
	if e.Malformed {
		return 0
	}
	return e.Status
}

// Unwrap makes a 404 a fileio.ErrNotExist: a missing database, table or
// snapshot is as permanent as a missing file.
func (e *Error) Unwrap() error {
	if e.Status == http.StatusNotFound && !e.Malformed {
		return fileio.ErrNotExist
	}
	return nil
}

// Permanent reports whether retrying cannot help: a malformed answer, a
// refused request (4xx but 408 and 429), or 501 Not Implemented.
func (e *Error) Permanent() bool {
	if e.Malformed {
		return true
	}
	switch {
	case e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests:
		return false
	case e.Status >= 400 && e.Status < 500, e.Status == http.StatusNotImplemented:
		return true
	}
	return false
}

// IsPermanent reports whether err holds a permanent catalog Error or a
// configuration problem of this package (an unsupported provider).
func IsPermanent(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Permanent()
	}
	var ce *ConfigError
	return errors.As(err, &ce)
}

// ConfigError is an invalid catalog option: permanent.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }
