// Package strictjson decodes documents that must hold exactly one JSON
// value: metadata files and REST answers. A truncated or garbled document
// must fail rather than read as an empty or partial one.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Decode decodes the one JSON value of doc into v. A blank doc returns
// empty: encoding/json would report io.EOF, which callers take for a clean
// end of stream. Anything after the value is "trailing data after the
// <value>", value naming what the caller expects ("JSON object").
func Decode(doc []byte, v any, empty error, value string) error {
	if len(bytes.TrimSpace(doc)) == 0 {
		return empty
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the " + value)
	}
	return nil
}
