package input

import (
	"errors"
	"sync/atomic"

	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/paimon"
)

// failed is the first permanent error any paimon input of this process
// stopped on. It lives beside the registration (which is process-wide too,
// through init): Benthos offers an input no way to fail its stream, only
// to end it, so the binary asks here after the run.
var failed atomic.Pointer[error]

// Failed returns the first permanent error (paimon.IsPermanent: invalid
// configuration, missing table or file, unsupported feature, corrupt
// metadata, expired position) a paimon input of this process stopped on,
// or nil. Such an error ends the input instead of being retried forever;
// Benthos then ends the pipeline as if the input were exhausted, so a
// program running the input must check Failed to exit non-zero, as
// connect-paimon does.
func Failed() error {
	if e := failed.Load(); e != nil {
		return *e
	}
	return nil
}

// stoppedOn returns the permanent error the input stopped on, or nil.
func (p *paimonInput) stoppedOn() error {
	if e := p.stopErr.Load(); e != nil {
		return *e
	}
	return nil
}

// stopOnPermanent returns err unchanged when it is transient (Benthos
// retries with back-off). A permanent err is logged once, recorded for
// Failed, and ends the input.
func (p *paimonInput) stopOnPermanent(err error) error {
	if !isPermanent(err) {
		return err
	}
	if p.stopErr.CompareAndSwap(nil, &err) {
		failed.CompareAndSwap(nil, &err)
		p.log.Errorf("paimon input stopped: %v (a permanent error: retrying cannot succeed)", err)
		if p.replays != nil {
			p.replays.signal() // wake a ReadBatch waiting for rows: it ends now
		}
	}
	return service.ErrEndOfInput
}

// permanentError marks an error of the input's own (not the library's) that
// retrying cannot cure, such as another owner holding a transactional id.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }

func (e permanentError) Unwrap() error { return e.err }

// isPermanent is paimon.IsPermanent extended by the input's own permanent
// errors.
func isPermanent(err error) bool {
	var pe permanentError
	return paimon.IsPermanent(err) || errors.As(err, &pe)
}
