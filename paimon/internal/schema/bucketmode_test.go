package schema

import "testing"

// Java's BucketMode, from the bucket option and the keys.
func TestBucketMode(t *testing.T) {
	const fields = `"fields":[{"id":0,"name":"id","type":"BIGINT NOT NULL"},{"id":1,"name":"dt","type":"STRING NOT NULL"}],"highestFieldId":1`
	for _, tc := range []struct{ keys, bucket, want string }{
		{`"partitionKeys":[],"primaryKeys":[]`, "4", "fixed"},
		{`"partitionKeys":[],"primaryKeys":[]`, "-1", "unaware"},
		{`"partitionKeys":["dt"],"primaryKeys":["id","dt"]`, "-1", "dynamic"},
		{`"partitionKeys":["dt"],"primaryKeys":["id"]`, "-1", "cross-partition"},
		{`"partitionKeys":[],"primaryKeys":["id"]`, "-2", "postpone"},
		{`"partitionKeys":[],"primaryKeys":["id"]`, "3", "fixed"},
	} {
		s, err := Parse([]byte(`{"version":3,"id":0,` + fields + `,` + tc.keys + `,"options":{"bucket":"` + tc.bucket + `"}}`))
		if err != nil {
			t.Fatalf("%s bucket %s: %v", tc.keys, tc.bucket, err)
		}
		if got := s.BucketMode(); got != tc.want {
			t.Errorf("%s bucket %s: %q, want %q", tc.keys, tc.bucket, got, tc.want)
		}
	}
}
