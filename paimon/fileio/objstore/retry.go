package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	"gocloud.dev/gcerrors"

	"github.com/connect-paimon/connect-paimon/internal/clock"
)

// errShortRead reports that a store returned fewer bytes than the range
// asked for. It is transient (the request is retried for the missing bytes)
// and surfaces only when retries are exhausted, so a truncated body is never
// handed to a parser as if it were the file.
var errShortRead = errors.New("short read from object store")

// attemptFunc runs one request attempt; attempt counts from 0.
type attemptFunc func(ctx context.Context, attempt int) error

// retrier runs operations with bounded exponential backoff and full jitter.
// It is separate from the SDKs' own retryers (disabled for S3) so that every
// driver gets the same policy, a body cut mid-stream is retried for the
// missing range only, and every attempt is reported to the metrics hook.
type retrier struct {
	max       int
	base, top time.Duration
	timeout   time.Duration
	metrics   func(op string, err error, d time.Duration)
}

func newRetrier(o Options) retrier {
	return retrier{max: o.maxRetries(), base: o.baseDelay(), top: o.maxDelay(), timeout: o.requestTimeout(), metrics: o.Metrics}
}

// do runs fn until it succeeds, fails permanently, exhausts the retries or
// ctx ends. The returned error is the last attempt's.
func (r retrier) do(ctx context.Context, op string, fn attemptFunc) error {
	for attempt := 0; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if r.timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, r.timeout)
		}
		start := time.Now()
		err := fn(actx, attempt)
		timedOut := actx.Err() != nil && ctx.Err() == nil
		cancel()
		if r.metrics != nil {
			r.metrics(op, err, time.Since(start))
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return errors.Join(err, ctx.Err())
		}
		if timedOut {
			err = fmt.Errorf("attempt timed out after %s: %w", r.timeout, err)
		} else if !isTransient(err) {
			return err
		}
		if attempt >= r.max {
			return fmt.Errorf("giving up after %d attempts: %w", attempt+1, err)
		}
		if err := clock.Sleep(ctx, r.backoff(attempt)); err != nil {
			return errors.Join(fmt.Errorf("retry interrupted: %w", err), ctx.Err())
		}
	}
}

// backoff is "full jitter": uniform in [0, min(top, base·2^attempt)], which
// spreads retries of many readers hitting the same throttled prefix.
func (r retrier) backoff(attempt int) time.Duration {
	d := r.base << min(attempt, 20)
	if d <= 0 || d > r.top {
		d = r.top
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

// isTransient reports whether a storage error is worth retrying: server
// errors (5xx), throttling (429, SlowDown), request timeouts, connection
// resets and refusals, and bodies cut short. Missing objects, permission
// errors, failed preconditions and other 4xx are permanent.
func isTransient(err error) bool {
	var sm *sizeMismatchError
	if err == nil || errors.Is(err, context.Canceled) || errors.As(err, &sm) {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.PermissionDenied, gcerrors.FailedPrecondition,
		gcerrors.InvalidArgument, gcerrors.AlreadyExists, gcerrors.Unimplemented, gcerrors.Canceled:
		return false
	case gcerrors.ResourceExhausted, gcerrors.Internal, gcerrors.DeadlineExceeded:
		return true
	}
	var st interface{ HTTPStatusCode() int }
	if errors.As(err, &st) {
		if c := st.HTTPStatusCode(); c >= 400 {
			return c == http.StatusRequestTimeout || c == http.StatusTooManyRequests ||
				(c >= 500 && c != http.StatusNotImplemented)
		}
	}
	if errors.Is(err, errShortRead) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	// A 2xx whose body does not parse was cut short in transit (S3 sends
	// listings and errors as complete XML documents).
	var de *smithy.DeserializationError
	if errors.As(err, &de) {
		return true
	}
	// The AWS classifier knows S3's throttling codes (SlowDown,
	// RequestTimeout…) and connection errors hidden in smithy wrappers.
	return retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary
}

func isNotFound(err error) bool { return gcerrors.Code(err) == gcerrors.NotFound }

// Retry is the object stores' bounded retry policy as these options
// configure it (MaxRetries, RetryBaseDelay, RetryMaxDelay, RequestTimeout,
// Metrics: exponential backoff with full jitter, a timeout per attempt,
// isTransient as the classifier), for the library's other network clients
// — the REST catalog — to retry exactly as storage does instead of growing
// a second policy. The function runs fn until it succeeds, returns an
// error isTransient rejects, exhausts the retries or ctx ends; it returns
// the last attempt's error (with "giving up after N attempts" when the
// retries ran out).
func (o Options) Retry() func(ctx context.Context, op string, fn func(ctx context.Context, attempt int) error) error {
	r := newRetrier(o)
	return func(ctx context.Context, op string, fn func(ctx context.Context, attempt int) error) error {
		return r.do(ctx, op, fn)
	}
}

// readAnswer reads a whole metadata answer (a listing, object metadata) of
// at most max bytes, so it can be checked before the SDK parses it; what
// names it in the error ("JSON answer").
func readAnswer(body io.Reader, max int, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(body, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("%s larger than %d bytes", what, max)
	}
	return b, nil
}
