package cireport

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"github.com/a11y-dev/cwac-operator/internal/diff"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// fingerprintVersion starts every fingerprint's input, so that a change of
// the identity rules can never reuse an old fingerprint.
const fingerprintVersion = "cwac-sarif-v1"

// FingerprintKey names the partial fingerprint in SARIF's
// partialFingerprints; the version changes whenever the rules do.
const FingerprintKey = "cwacIssue/v1"

// identity is a hash of what makes an issue the same issue from scan to
// scan, as the baseline comparison and the issue history decide it: the
// organisation, the page (diff.PageKey: two spellings of one page are one),
// the viewport width, the rule, the element's HTML and its position
// (diff.ElementTarget).
type identity [sha256.Size]byte

func identityOf(organisation, url string, width int, rule, html, target string) identity {
	return identityOfPage(organisation, diff.PageKey(url), width, rule, html, target)
}

// identityOfPage is identityOf with the page's key (diff.PageKey) already made.
func identityOfPage(organisation, pageKey string, width int, rule, html, target string) identity {
	return hashParts(fingerprintVersion, organisation, pageKey, strconv.Itoa(width), rule, html, target)
}

// hashParts hashes strings with their lengths, so no two lists of parts
// hash alike by moving a boundary.
func hashParts(parts ...string) [sha256.Size]byte {
	h := sha256.New()
	var buf [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(buf[:], uint64(len(p)))
		h.Write(buf[:])
		h.Write([]byte(p))
	}
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out
}

// fingerprint is the identity with the ordinal among identical
// issues (same identity) in file order: two identical elements of one page
// are two issues, and keep their fingerprints while both stay.
func fingerprint(id identity, ordinal int) string {
	sum := hashParts(string(id[:]), strconv.Itoa(ordinal))
	return hex.EncodeToString(sum[:16])
}

// comparedText is the smallest cap diff.json puts on a URL, rule or target
// cell: text cut to it reads the same from a CSV row and from diff.json.
const comparedText = 1000

// comparedKey is how a CSV row and a diff.json row of the same issue find
// each other: the cells diff.json carries, cut as it cuts them.
func comparedKey(url string, width int, rule, target, html string) identity {
	return hashParts(textcap.Head(url, comparedText), strconv.Itoa(width), textcap.Head(rule, comparedText),
		textcap.Head(target, comparedText), textcap.Head(html, diff.MaxHTMLBytes))
}
