package objstore

import (
	"reflect"
	"testing"
)

// Java's S3 FileIO spellings of the same settings all reach Options; the
// fs.s3a.* spelling wins a clash; other file systems' keys are ignored.
func TestWithProperties(t *testing.T) {
	o, err := Options{Region: "eu-west-1", AccessKeyID: "old"}.WithProperties(map[string]string{
		"s3.access-key":            "AK",
		"s3a.secret.key":           "SK",
		"fs.s3a.session.token":     "ST",
		"s3.endpoint":              "http://minio:9000",
		"fs.s3a.path.style.access": "true",
		"fs.oss.accessKeyId":       "oss",
		"token.provider":           "bear",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Region: "eu-west-1", AccessKeyID: "AK", SecretAccessKey: "SK", SessionToken: "ST", Endpoint: "http://minio:9000", ForcePathStyle: true}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("got %+v\nwant %+v", o, want)
	}
	o, _ = Options{}.WithProperties(map[string]string{"s3.endpoint": "a", "fs.s3a.endpoint": "b", "s3.region": "r"})
	if o.Endpoint != "b" || o.Region != "r" {
		t.Fatalf("clash: %+v", o)
	}
	if _, err := (Options{}).WithProperties(map[string]string{"s3.path-style-access": "yes please"}); err == nil {
		t.Fatal("a bad boolean was accepted")
	}
}
