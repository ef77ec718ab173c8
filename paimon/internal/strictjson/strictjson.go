// Package strictjson decodes documents that must hold exactly one JSON
// value: metadata files and REST answers. A truncated or garbled document
// must fail rather than read as an empty or partial one.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
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

// Required returns "<doc>: missing required key %q" for the first of keys
// that was absent or null in the document decoded into v: v points to a
// struct whose field tagged with each key is a pointer, nil when missing.
// Java refuses such a document too, and a zero in its place (schema id 0,
// an empty manifest list name) would silently read the wrong data.
func Required(doc string, v any, keys ...string) error {
	rv := reflect.ValueOf(v).Elem()
	for _, key := range keys {
		f := fieldTagged(rv, key)
		if !f.IsValid() {
			panic("strictjson: no field tagged " + key)
		}
		if f.IsNil() {
			return fmt.Errorf("%s: missing required key %q", doc, key)
		}
	}
	return nil
}

// fieldTagged is the field of struct s that decodes JSON key.
func fieldTagged(s reflect.Value, key string) reflect.Value {
	t := s.Type()
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == key {
			return s.Field(i)
		}
	}
	return reflect.Value{}
}
