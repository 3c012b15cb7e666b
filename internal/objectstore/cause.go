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
	"syscall"

	"github.com/minio/minio-go/v7"
)

// Cause is why a bucket operation failed, in words a condition can carry.
type Cause string

// The causes a bucket failure is put down to.
const (
	// CauseUnreachable: no answer from the endpoint (name, connection, TLS).
	CauseUnreachable Cause = "BucketUnreachable"
	// CauseCertificate: the endpoint's TLS certificate is not trusted (no
	// CA file given for a private authority, or the wrong one).
	CauseCertificate Cause = "BucketCertificateUntrusted"
	// CauseCredentials: the service did not accept the credentials.
	CauseCredentials Cause = "BucketCredentialsRefused"
	// CauseDenied: the credentials may not do this (a policy that leaves
	// the operation out, an expired grant), or, for a write, the bucket
	// takes none (read-only, or over its quota: SeaweedFS among others
	// refuses writes to a full bucket with AccessDenied).
	CauseDenied Cause = "BucketAccessDenied"
	// CauseNoBucket: the bucket does not exist.
	CauseNoBucket Cause = "BucketNotFound"
	// CauseFull: the bucket or the service has no room (quota, storage full).
	CauseFull Cause = "BucketFull"
	// CauseCutOff: an upload or download ended before its last byte, or the
	// object read back is not the file sent.
	CauseCutOff Cause = "TransferCutOff"
	// CauseService: the service failed otherwise (a 5xx, an answer not understood).
	CauseService Cause = "BucketServiceError"
)

// What an Error says was tried.
const (
	opRead   = "read"
	opUpload = "upload"
	opList   = "list"
	opDelete = "delete"
	opCheck  = "check"
	opGrant  = "grant"
)

// Error is a failed bucket operation: what was tried, on which key, and why.
type Error struct {
	Op    string // "upload", "read", "list", "delete", "check"
	Key   string // the object key or prefix ("" for the bucket)
	Cause Cause
	Err   error
}

// deniedWrite is what a refused write may mean: the service's answer is
// the same for each, so the message names them all.
const deniedWrite = "the credentials or the grant may not write there, or the bucket is read-only or over its quota"

func (e *Error) Error() string {
	where := "bucket"
	if e.Key != "" {
		where = fmt.Sprintf("key %q", e.Key)
	}
	cause := string(e.Cause)
	if e.Cause == CauseDenied && e.Op == opUpload {
		cause += ": " + deniedWrite
	}
	return fmt.Sprintf("results bucket: %s of %s failed (%s): %v", e.Op, where, cause, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Permanent says whether trying again cannot help without someone changing
// the bucket or the credentials.
func (e *Error) Permanent() bool {
	switch e.Cause {
	case CauseCertificate, CauseCredentials, CauseDenied, CauseNoBucket, CauseFull:
		return true
	}
	return false
}

// CauseOf finds err's Cause ("" when err is not a bucket failure).
func CauseOf(err error) Cause {
	var e *Error
	if errors.As(err, &e) {
		return e.Cause
	}
	return ""
}

// fail wraps err from op on key with its cause.
func fail(op, key string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, Key: key, Cause: classify(err), Err: err}
}

// classify reads the service's error code first, then the transport's.
func classify(err error) Cause {
	resp := minio.ToErrorResponse(err)
	switch resp.Code {
	case "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "AuthorizationHeaderMalformed", "InvalidSecurity":
		return CauseCredentials
	case "AccessDenied", "AllAccessDisabled", "AccountProblem":
		return CauseDenied
	case "NoSuchBucket":
		return CauseNoBucket
	case "QuotaExceeded", "XMinioStorageFull", "XMinioAdminBucketQuotaExceeded", "StorageFull", "EntityTooLarge":
		return CauseFull
	case "IncompleteBody", "BadDigest", "InvalidDigest", "XAmzContentChecksumMismatch", "XAmzContentSHA256Mismatch":
		return CauseCutOff
	}
	switch resp.StatusCode {
	case http.StatusForbidden:
		return CauseDenied
	case http.StatusInsufficientStorage, http.StatusRequestEntityTooLarge:
		return CauseFull
	}
	var certErr *tls.CertificateVerificationError
	var authErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &authErr) || errors.As(err, &hostErr) {
		return CauseCertificate
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return CauseCutOff
	}
	// A connection that broke once made was cut off; one never made (or a
	// name never found) is an endpoint that cannot be reached.
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op != "dial" && !errors.Is(err, syscall.ECONNREFUSED) {
		return CauseCutOff
	}
	var dnsErr *net.DNSError
	if opErr != nil || errors.As(err, &dnsErr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED) {
		return CauseUnreachable
	}
	return CauseService
}
