// Package consumer reads and writes Paimon consumer files, the per-reader
// progress markers stored at <table>/consumer/consumer-<id> that tell writers
// which snapshots a streaming reader still needs (snapshot expiry keeps every
// snapshot >= the smallest nextSnapshot) and where a reader resumes.
//
// The file format and the Manager's methods follow Java Paimon's
// ConsumerManager; pypaimon's ConsumerManager writes a compact spelling of the
// same JSON and is interoperable. Where the two differ (regex matching in
// Clear), Java's behaviour is implemented and the difference is documented.
package consumer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Consumer is the content of one consumer file.
type Consumer struct {
	// NextSnapshot is the id of the next snapshot the consumer will read:
	// every snapshot below it has been consumed, and expiry must keep it.
	NextSnapshot int64
}

// parseConsumer decodes a consumer file. It accepts Java's pretty-printed form
// ({\n  "nextSnapshot" : 2931\n}) and pypaimon's compact one
// ({"nextSnapshot": 42}) and ignores unknown fields, as both readers do.
//
// It is stricter than Jackson on one point on purpose: nextSnapshot must be
// present and a JSON integer that fits an int64. Jackson would turn a missing
// field into 0 and truncate 42.5 to 42, and either would silently move a
// reader's position; here both are errors.
func parseConsumer(data []byte) (Consumer, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		// Not "no consumer", and not encoding/json's io.EOF, which reads
		// as a clean end of stream.
		return Consumer{}, errors.New("parse consumer JSON: empty file")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return Consumer{}, fmt.Errorf("parse consumer JSON: %w", err)
	}
	if fields == nil {
		return Consumer{}, errors.New("parse consumer JSON: not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return Consumer{}, errors.New("parse consumer JSON: trailing data after the object")
	}
	raw, ok := fields["nextSnapshot"]
	if !ok {
		return Consumer{}, errors.New("parse consumer JSON: field nextSnapshot is missing")
	}
	n, err := parseInt64(raw)
	if err != nil {
		return Consumer{}, fmt.Errorf("parse consumer JSON: field nextSnapshot: %w", err)
	}
	if n <= 0 {
		// Snapshot ids start at 1: neither Java nor pypaimon writes a
		// position before the first, and reading one as "start over"
		// would replay or skip rows.
		return Consumer{}, fmt.Errorf("parse consumer JSON: field nextSnapshot is %d, snapshot ids start at 1", n)
	}
	return Consumer{NextSnapshot: n}, nil
}

// parseInt64 accepts only a JSON integer literal (optional minus, digits).
// encoding/json has already checked that raw is valid JSON.
func parseInt64(raw json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return 0, fmt.Errorf("want an integer, got %s", quoteShort(s))
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("want an integer, got %s", quoteShort(s))
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("integer %s does not fit in 64 bits", quoteShort(s))
	}
	return n, nil
}

// quoteShort keeps error messages bounded when a file holds garbage.
func quoteShort(s string) string {
	const max = 40
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}

// JSON encodes c the way Java Paimon writes it (Jackson's default pretty
// printer, no trailing newline). Java, pypaimon and Parse all read it.
func (c Consumer) JSON() []byte {
	return []byte("{\n  \"nextSnapshot\" : " + strconv.FormatInt(c.NextSnapshot, 10) + "\n}")
}
