package websession

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	keyA = []byte(strings.Repeat("a", MinSecretBytes))
	keyB = []byte(strings.Repeat("b", MinSecretBytes))
)

func sealer(t testing.TB, keys ...[]byte) *Sealer {
	t.Helper()
	s, err := NewSealer(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseKeyFile(t *testing.T) {
	long := strings.Repeat("k", MinSecretBytes)
	for _, tc := range []struct {
		name   string
		data   string
		keys   int
		errHas string
	}{
		{"one key", long + "\n", 1, ""},
		{"rotation with blank lines and spaces", "\n  " + long + "1 \n\n" + long + "2\n", 2, ""},
		{"empty", " \n\n", 0, "empty"},
		{"one byte short", long[1:], 0, "at least 32 bytes"},
		{"at the cap", strings.Repeat(long+"\n", MaxKeys), MaxKeys, ""},
		{"past the cap", strings.Repeat(long+"\n", MaxKeys+1), 0, "at most 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := ParseKeyFile([]byte(tc.data))
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("%v, want %q", err, tc.errHas)
				}
				return
			}
			if err != nil || len(keys) != tc.keys {
				t.Fatalf("%d keys, %v", len(keys), err)
			}
		})
	}
}

func TestNewSealerRefuses(t *testing.T) {
	if _, err := NewSealer(); err == nil {
		t.Error("no key accepted")
	}
	if _, err := NewSealer(keyA[1:]); err == nil {
		t.Error("a short key accepted")
	}
	many := make([][]byte, MaxKeys+1)
	for i := range many {
		many[i] = keyA
	}
	if _, err := NewSealer(many...); err == nil {
		t.Error("too many keys accepted")
	}
}

// TestSeal: a sealed value opens only with a listed key, for its own
// cookie, unchanged; nothing of the plaintext shows in it.
func TestSeal(t *testing.T) {
	a, b, rotated := sealer(t, keyA), sealer(t, keyB), sealer(t, keyB, keyA)
	plain := []byte(`{"u":"alice@example.org"}`)
	v, err := a.Seal("c", plain)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v, "alice") {
		t.Fatal("the plaintext shows in the sealed value")
	}
	v2, _ := a.Seal("c", plain)
	if v == v2 {
		t.Error("two seals of the same plaintext are equal (nonce reused)")
	}
	if got, err := a.Open("c", v); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("open: %q %v", got, err)
	}
	if got, err := rotated.Open("c", v); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("an older key listed second still opens: %q %v", got, err)
	}
	nv, _ := rotated.Seal("c", plain)
	if _, err := b.Open("c", nv); err != nil {
		t.Errorf("the first key seals: %v", err)
	}
	if _, err := a.Open("c", nv); !errors.Is(err, ErrForged) {
		t.Errorf("a value sealed with the new key opened with the old one alone: %v", err)
	}
	if _, err := b.Open("c", v); !errors.Is(err, ErrForged) {
		t.Errorf("another key: %v", err)
	}
	if _, err := a.Open("other", v); !errors.Is(err, ErrForged) {
		t.Errorf("moved to another cookie: %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(v)
	for i := range raw {
		if i == 0 {
			continue // the version byte: malformed, below
		}
		c := bytes.Clone(raw)
		c[i] ^= 1
		if _, err := a.Open("c", base64.RawURLEncoding.EncodeToString(c)); !errors.Is(err, ErrForged) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	c := bytes.Clone(raw)
	c[0] = 2
	if _, err := a.Open("c", base64.RawURLEncoding.EncodeToString(c)); !errors.Is(err, ErrMalformed) {
		t.Errorf("version 2: %v", err)
	}
	for _, bad := range []string{"", "!!!", "AQ", base64.RawURLEncoding.EncodeToString(raw[:28]), v + "="} {
		if _, err := a.Open("c", bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestSealLimits: MaxValueBytes, one below, at and one above, sealing
// and opening.
func TestSealLimits(t *testing.T) {
	a := sealer(t, keyA)
	overhead := len(mustSeal(t, a, nil))
	// base64 of 1+12+n+16 bytes: the largest plaintext that fits.
	fits := (MaxValueBytes*6/8 - 1 - 12 - 16)
	for _, n := range []int{fits - 1, fits} {
		if v, err := a.Seal("c", make([]byte, n)); err != nil || len(v) > MaxValueBytes {
			t.Errorf("%d bytes: %d %v", n, len(v), err)
		}
	}
	if _, err := a.Seal("c", make([]byte, fits+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("%d bytes: %v", fits+1, err)
	}
	if _, err := a.Open("c", strings.Repeat("A", MaxValueBytes+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("open past the limit: %v", err)
	}
	if _, err := a.Open("c", strings.Repeat("A", MaxValueBytes)); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrForged) {
		t.Errorf("open at the limit reads it: %v", err)
	}
	if overhead != 39 {
		t.Errorf("an empty plaintext seals to %d characters, want 39 (29 bytes)", overhead)
	}
}

func mustSeal(t testing.TB, s *Sealer, p []byte) string {
	t.Helper()
	v, err := s.Seal("c", p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// FuzzOpen: any cookie value is refused or opens to what was sealed;
// nothing it decodes to is larger than the value allows.
func FuzzOpen(f *testing.F) {
	s := sealer(f, keyA)
	now := time.Unix(1_800_000_000, 0)
	sess, _ := NewSession("u", []string{"g"}, now, time.Hour)
	sv, _ := s.SealSession(sess)
	flow, _ := NewFlow("/scans", now)
	fv, _ := s.SealFlow(flow)
	for _, v := range []string{sv, fv, "", "AQ", mustSeal(f, s, []byte("{}"))} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		plain, err := s.Open(SessionCookie, v)
		if err == nil && len(plain) > MaxValueBytes*6/8 {
			t.Fatalf("opened %d bytes from %d", len(plain), len(v))
		}
		if got, err := s.OpenSession(v, now); err == nil && (got.User == "" || got.CSRF == "") {
			t.Fatalf("an empty session opened: %+v", got)
		}
		if got, err := s.OpenFlow(v, now); err == nil && got.Return != SafeReturn(got.Return) {
			t.Fatalf("a flow returning elsewhere opened: %+v", got)
		}
	})
}
