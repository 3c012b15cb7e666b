package websession

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MinSecretBytes is the shortest secret a key file may hold: 32 bytes,
// whatever their encoding (`openssl rand -base64 48` gives 64 characters).
const MinSecretBytes = 32

// MaxKeys bounds the keys a key file may list (the one that seals, and
// older ones still accepted while sessions sealed with them expire).
const MaxKeys = 8

// MaxValueBytes bounds a sealed cookie value: browsers keep at most 4096
// bytes of a cookie, its name and attributes included, so a longer value
// was not made here. Open refuses longer input before decoding it.
const MaxValueBytes = 3800

// sealVersion is the first byte of every sealed value, so the format can
// change without reading old values as something else.
const sealVersion = 1

// keyInfo separates the cookie keys from anything else ever derived from
// the same secret.
const keyInfo = "cwac-operator dashboard cookie key v1"

// Errors of Open: the value is not one this server sealed, or no longer
// opens with any of its keys.
var (
	ErrMalformed = errors.New("malformed sealed value")
	ErrTooLong   = errors.New("sealed value too long")
	ErrForged    = errors.New("sealed value does not open with any key (tampered, or sealed with a key no longer listed)")
)

// Sealer seals and opens cookie values: AES-256-GCM with a random nonce,
// authenticated with the cookie's name, so a value cannot be moved from
// one cookie to another, and nothing in it can be read or changed
// without the key.
type Sealer struct {
	aeads []cipher.AEAD // the first seals; all open
}

// ParseKeyFile reads a session key file: one secret per line (blank lines
// and surrounding spaces ignored), the first sealing new cookies, the
// others only opening old ones (rotation: put the new key first, drop the
// old one after the session lifetime).
func ParseKeyFile(data []byte) ([][]byte, error) {
	var keys [][]byte
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(line) < MinSecretBytes {
			return nil, fmt.Errorf("line %d: a session key must be at least %d bytes (openssl rand -base64 48), not %d", i+1, MinSecretBytes, len(line))
		}
		keys = append(keys, []byte(line))
	}
	switch {
	case len(keys) == 0:
		return nil, errors.New("no session key: the file is empty")
	case len(keys) > MaxKeys:
		return nil, fmt.Errorf("%d session keys: at most %d (the current one and older ones being retired)", len(keys), MaxKeys)
	}
	return keys, nil
}

// NewSealer derives one AES-256 key from each secret (HKDF-SHA256).
func NewSealer(secrets ...[]byte) (*Sealer, error) {
	if len(secrets) == 0 || len(secrets) > MaxKeys {
		return nil, fmt.Errorf("between 1 and %d session keys are needed, not %d", MaxKeys, len(secrets))
	}
	s := &Sealer{}
	for i, secret := range secrets {
		if len(secret) < MinSecretBytes {
			return nil, fmt.Errorf("session key %d: at least %d bytes, not %d", i+1, MinSecretBytes, len(secret))
		}
		key, err := hkdf.Key(sha256.New, secret, nil, keyInfo, 32)
		if err != nil {
			return nil, err
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		s.aeads = append(s.aeads, aead)
	}
	return s, nil
}

// Seal encrypts and authenticates plaintext for the cookie called name.
func (s *Sealer) Seal(name string, plaintext []byte) (string, error) {
	aead := s.aeads[0]
	buf := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plaintext)+aead.Overhead())
	buf[0] = sealVersion
	if _, err := io.ReadFull(rand.Reader, buf[1:]); err != nil {
		return "", fmt.Errorf("random nonce: %w", err)
	}
	out := aead.Seal(buf, buf[1:], plaintext, aad(name))
	v := base64.RawURLEncoding.EncodeToString(out)
	if len(v) > MaxValueBytes {
		return "", fmt.Errorf("%w: %d bytes sealed, a cookie keeps at most %d", ErrTooLong, len(v), MaxValueBytes)
	}
	return v, nil
}

// Open checks and decrypts a value Seal made for the cookie called name.
// It reads at most MaxValueBytes of input.
func (s *Sealer) Open(name, value string) ([]byte, error) {
	if len(value) > MaxValueBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLong, len(value), MaxValueBytes)
	}
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64url", ErrMalformed)
	}
	nonceSize, overhead := s.aeads[0].NonceSize(), s.aeads[0].Overhead()
	if len(raw) < 1+nonceSize+overhead {
		return nil, fmt.Errorf("%w: %d bytes, shorter than any sealed value", ErrMalformed, len(raw))
	}
	if raw[0] != sealVersion {
		return nil, fmt.Errorf("%w: version %d, not %d", ErrMalformed, raw[0], sealVersion)
	}
	nonce, sealed := raw[1:1+nonceSize], raw[1+nonceSize:]
	for _, aead := range s.aeads {
		if plain, err := aead.Open(nil, nonce, sealed, aad(name)); err == nil {
			return plain, nil
		}
	}
	return nil, ErrForged
}

// aad binds a sealed value to its cookie's name.
func aad(name string) []byte {
	return bytes.Join([][]byte{[]byte("cwac-operator cookie"), []byte(name)}, []byte{0})
}
