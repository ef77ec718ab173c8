//go:build !paimon_nogcs

package objstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A service-account document as Google issues them; the key is not a real
// one (credentials are parsed at open, the key used only for a token).
const fakeServiceAccount = `{
  "type": "service_account",
  "project_id": "lake-project",
  "private_key_id": "abc123",
  "private_key": "-----BEGIN PRIVATE KEY-----\nSECRETSECRET\n-----END PRIVATE KEY-----\n",
  "client_email": "reader@lake-project.iam.gserviceaccount.com",
  "client_id": "1234567890",
  "token_uri": "https://oauth2.googleapis.com/token"
}`

func TestGCSCredentialsFromJSONAndFile(t *testing.T) {
	ctx := context.Background()
	creds, err := gcsCredentials(ctx, Options{GCSCredentialsJSON: fakeServiceAccount})
	if err != nil {
		t.Fatalf("credentials_json: %v", err)
	}
	if creds.ProjectID != "lake-project" {
		t.Fatalf("credentials_json: project %q, want lake-project (the document was not used)", creds.ProjectID)
	}
	file := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(file, []byte(fakeServiceAccount), 0o600); err != nil {
		t.Fatal(err)
	}
	creds, err = gcsCredentials(ctx, Options{GCSCredentialsFile: file})
	if err != nil || creds.ProjectID != "lake-project" {
		t.Fatalf("credentials_file: %v, %+v", err, creds)
	}
}

func TestGCSCredentialsErrorsNeverQuoteTheDocument(t *testing.T) {
	ctx := context.Background()
	for name, o := range map[string]Options{
		"both":         {GCSCredentialsJSON: fakeServiceAccount, GCSCredentialsFile: "/x.json"},
		"not json":     {GCSCredentialsJSON: "SECRETSECRET not json"},
		"unknown type": {GCSCredentialsJSON: `{"type": "SECRETSECRET", "private_key": "SECRETSECRET"}`},
		"missing file": {GCSCredentialsFile: filepath.Join(t.TempDir(), "absent.json")},
	} {
		_, err := gcsCredentials(ctx, o)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), "SECRETSECRET") && name != "unknown type" {
			t.Errorf("%s: error quotes the document: %v", name, err)
		}
		if !strings.Contains(err.Error(), "Google credentials") {
			t.Errorf("%s: error does not say what failed: %v", name, err)
		}
	}
}

func TestS3EC2RoleExcludesStaticAndAnonymous(t *testing.T) {
	loc := location{Scheme: "s3", Bucket: "b", Root: "s3://b/wh"}
	for _, o := range []Options{
		{FromEC2Role: true, AccessKeyID: "AKIA", SecretAccessKey: "s"},
		{FromEC2Role: true, Anonymous: true},
	} {
		if _, err := openS3(context.Background(), loc, o); err == nil || !strings.Contains(err.Error(), "EC2 role") {
			t.Errorf("%+v: err %v, want the EC2 role conflict named", o, err)
		}
	}
}
