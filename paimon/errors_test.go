package paimon_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/connect-paimon/connect-paimon/paimon"
	"github.com/connect-paimon/connect-paimon/paimon/fileio"
	"github.com/connect-paimon/connect-paimon/paimon/internal/predicate"
	"github.com/connect-paimon/connect-paimon/paimon/types"
)

func TestIsPermanent(t *testing.T) {
	fields := []types.DataField{{ID: 0, Name: "id", Type: types.DataType{Root: types.BigInt}}}
	_, parseErr := predicate.Parse("id >", fields)
	permanent := []error{
		&paimon.FieldError{Field: "Columns", Err: errors.New("no column")},
		fmt.Errorf("connect: %w", parseErr),
		fmt.Errorf("open table: %w", fileio.ErrNotExist),
		fmt.Errorf("table: %w", types.ErrUnsupported),
		fmt.Errorf("manifest: %w", types.ErrCorrupt),
		fmt.Errorf("consumer: %w", paimon.ErrExpired),
		fmt.Errorf("consumer: %w", paimon.ErrRecreated),
		errors.Join(errors.New("a"), &paimon.FieldError{Field: "ShardIndex", Err: errors.New("b")}),
	}
	for _, err := range permanent {
		if !paimon.IsPermanent(err) {
			t.Errorf("IsPermanent(%v) = false", err)
		}
	}
	// What can heal — or what nobody classified — is retried.
	transient := []error{nil, errors.New("read s3://b/k: 503 Slow Down"), context.DeadlineExceeded,
		fmt.Errorf("read: %w", errors.New("connection reset by peer"))}
	for _, err := range transient {
		if paimon.IsPermanent(err) {
			t.Errorf("IsPermanent(%v) = true", err)
		}
	}
	if !errors.Is(parseErr, predicate.ErrInvalid) || parseErr.Error() == predicate.ErrInvalid.Error() {
		t.Errorf("a parse error keeps its own text and wraps ErrInvalid: %v", parseErr)
	}
}
