package objectstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"

	"github.com/minio/minio-go/v7"
)

func TestClassify(t *testing.T) {
	resp := func(code string, status int) error {
		return minio.ErrorResponse{Code: code, StatusCode: status, Message: code}
	}
	for name, tc := range map[string]struct {
		err  error
		want Cause
	}{
		"wrong key":         {resp("InvalidAccessKeyId", 403), CauseCredentials},
		"wrong secret":      {resp("SignatureDoesNotMatch", 403), CauseCredentials},
		"expired token":     {resp("ExpiredToken", 400), CauseCredentials},
		"denied":            {resp("AccessDenied", 403), CauseDenied},
		"bare 403":          {resp("", 403), CauseDenied},
		"no bucket":         {resp("NoSuchBucket", 404), CauseNoBucket},
		"quota":             {resp("QuotaExceeded", 403), CauseFull},
		"minio full":        {resp("XMinioStorageFull", 507), CauseFull},
		"bare 507":          {resp("", http.StatusInsufficientStorage), CauseFull},
		"incomplete body":   {resp("IncompleteBody", 400), CauseCutOff},
		"bad digest":        {resp("BadDigest", 400), CauseCutOff},
		"unexpected EOF":    {fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), CauseCutOff},
		"reset":             {&net.OpError{Op: "read", Err: syscall.ECONNRESET}, CauseCutOff},
		"refused":           {&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, CauseUnreachable},
		"no such host":      {&net.DNSError{Err: "no such host", Name: "s3.invalid"}, CauseUnreachable},
		"deadline":          {context.DeadlineExceeded, CauseUnreachable},
		"internal error":    {resp("InternalError", 500), CauseService},
		"something else":    {errors.New("odd"), CauseService},
		"slow down":         {resp("SlowDown", 503), CauseService},
		"already wrapped":   {&Error{Op: "read", Cause: CauseFull, Err: errors.New("x")}, CauseFull},
		"unknown authority": {&url.Error{Op: "Get", URL: "https://s3", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, CauseCertificate},
		"wrong host":        {&url.Error{Op: "Get", URL: "https://s3", Err: x509.HostnameError{Host: "s3"}}, CauseCertificate},
		"forbidden quota":   {resp("XMinioAdminBucketQuotaExceeded", 400), CauseFull},
		"too large entity":  {resp("EntityTooLarge", 400), CauseFull},
	} {
		err := fail("upload", "k", tc.err)
		if got := CauseOf(err); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
		if !errors.Is(err, tc.err) && name != "already wrapped" {
			t.Errorf("%s: the cause's error is not kept", name)
		}
	}
	if fail("upload", "k", nil) != nil {
		t.Error("no error made one")
	}
	if CauseOf(errors.New("x")) != "" {
		t.Error("a plain error has a cause")
	}
}

func TestPermanent(t *testing.T) {
	for c, want := range map[Cause]bool{
		CauseCertificate: true, CauseCredentials: true, CauseDenied: true, CauseNoBucket: true, CauseFull: true,
		CauseUnreachable: false, CauseCutOff: false, CauseService: false,
	} {
		if got := (&Error{Cause: c}).Permanent(); got != want {
			t.Errorf("%s: permanent %v, want %v", c, got, want)
		}
	}
}

func TestErrorSaysWhatWhereAndWhy(t *testing.T) {
	e := &Error{Op: "upload", Key: "ns/scan/summary.json", Cause: CauseFull, Err: errors.New("quota exceeded")}
	want := `results bucket: upload of key "ns/scan/summary.json" failed (BucketFull): quota exceeded`
	if e.Error() != want {
		t.Errorf("%q, want %q", e.Error(), want)
	}
	got := (&Error{Op: "check", Cause: CauseNoBucket, Err: errors.New("no bucket")}).Error()
	if got != "results bucket: check of bucket failed (BucketNotFound): no bucket" {
		t.Errorf("%q", got)
	}
	// A refused write names what else it may be; a refused read does not.
	got = (&Error{Op: "upload", Key: "k", Cause: CauseDenied, Err: errors.New("access denied")}).Error()
	if got != `results bucket: upload of key "k" failed (BucketAccessDenied: the credentials or the grant may not write there, `+
		`or the bucket is read-only or over its quota): access denied` {
		t.Errorf("%q", got)
	}
	got = (&Error{Op: "read", Key: "k", Cause: CauseDenied, Err: errors.New("access denied")}).Error()
	if got != `results bucket: read of key "k" failed (BucketAccessDenied): access denied` {
		t.Errorf("%q", got)
	}
}
