package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// Headers a webhook receiver gets. The signature covers the timestamp and
// the body, so a captured request cannot be replayed later with a fresh
// timestamp; receivers should refuse timestamps more than a few minutes
// old (docs/notifications.md).
const (
	HeaderSignature = "X-Cwac-Signature"
	HeaderTimestamp = "X-Cwac-Timestamp"
	HeaderEvent     = "X-Cwac-Event"
	HeaderDelivery  = "X-Cwac-Delivery"
	signaturePrefix = "sha256="
)

// Sign is the X-Cwac-Signature value of a body sent at a time: "sha256="
// and the hex HMAC-SHA256, under key, of the timestamp (Unix seconds, as
// X-Cwac-Timestamp carries it), a dot, and the body's bytes.
func Sign(key []byte, timestamp time.Time, body []byte) (ts, signature string) {
	ts = strconv.FormatInt(timestamp.Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return ts, signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// Verify is what a receiver does (and what tests do): the signature is
// the body's under key, and the timestamp is within maxAge of now.
func Verify(key []byte, ts, signature string, body []byte, now time.Time, maxAge time.Duration) bool {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if age := now.Sub(time.Unix(sec, 0)); age > maxAge || age < -maxAge {
		return false
	}
	got, ok := strings.CutPrefix(signature, signaturePrefix)
	if !ok {
		return false
	}
	sum, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	_, want := Sign(key, time.Unix(sec, 0), body)
	wantSum, _ := hex.DecodeString(strings.TrimPrefix(want, signaturePrefix))
	return hmac.Equal(sum, wantSum)
}

// Render is the body and headers of one delivery in the receiver's
// format. A webhook's body is signed when hmacKey is set; Slack and Teams
// bodies are never signed (the URL is their secret).
func Render(p *Payload, typ cwacv1alpha1.ReceiverType, hmacKey []byte, now time.Time) ([]byte, http.Header, error) {
	var v any
	switch typ {
	case cwacv1alpha1.ReceiverWebhook:
		v = p
	case cwacv1alpha1.ReceiverSlack:
		v = Slack(p)
	case cwacv1alpha1.ReceiverTeams:
		v = Teams(p)
	default:
		return nil, nil, fmt.Errorf("receiver %q: unknown type %q; types are webhook, slack and teams", p.Receiver, typ)
	}
	body, err := Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("receiver %q: %w", p.Receiver, err)
	}
	if typ != cwacv1alpha1.ReceiverWebhook {
		hmacKey = nil
	}
	return body, Headers(string(p.Event), p.ID, hmacKey, body, now), nil
}

// Headers are a body's headers: its event and delivery id, and, with a
// key, the timestamp and the signature of the body under the key at now.
func Headers(event, id string, key, body []byte, now time.Time) http.Header {
	h := http.Header{}
	h.Set(HeaderEvent, event)
	h.Set(HeaderDelivery, id)
	if len(key) > 0 {
		ts, sig := Sign(key, now, body)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
	}
	return h
}
