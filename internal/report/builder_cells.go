package report

import (
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/results"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
	"github.com/a11y-dev/cwac-operator/internal/weblink"
)

// viewportBit is the bit of a viewport cell, naming it on first sight.
func (b *Builder) viewportBit(cell string) uint16 {
	for i, v := range b.viewports {
		if v == cell {
			return 1 << i
		}
	}
	if len(b.viewports) < maxViewports {
		b.viewports = append(b.viewports, clip(cell))
		return 1 << (len(b.viewports) - 1)
	}
	return 1 << maxViewports // "other"
}

// viewportNames lists the viewports of a bit set, as "320×450".
func (b *Builder) viewportNames(bits uint16) []string {
	var out []string
	for i, v := range b.viewports {
		if bits&(1<<i) != 0 {
			out = append(out, viewportLabel(v))
		}
	}
	if bits&(1<<maxViewports) != 0 {
		out = append(out, "other")
	}
	return out
}

func viewportLabel(cell string) string {
	if v, err := results.ParseViewport(cell); err == nil {
		return strconv.Itoa(v.Width) + "×" + strconv.Itoa(v.Height)
	}
	return textcap.Head(cell, 40)
}

// hash identifies a tuple of strings (each length-prefixed, so that no two
// tuples write the same bytes).
func (b *Builder) hash(parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(b.seed)
	for _, p := range parts {
		var n [8]byte
		for i, l := 0, len(p); i < 8; i, l = i+1, l>>8 {
			n[i] = byte(l)
		}
		_, _ = h.Write(n[:])
		_, _ = h.WriteString(p)
	}
	return h.Sum64()
}

// firstPair reports whether a tuple of the page being read, the element
// set's, is seen for the first time (true always once the tracking limit
// is reached: counts may then overstate). Every tuple names its page's
// URL, so the element set keeps it with the page's elements: a page's
// pairs are looked up only while it is read, as its elements are.
func (b *Builder) firstPair(parts ...string) bool {
	k := b.hash(parts...)
	if b.elements.has(k) {
		return false
	}
	if b.pairsTold < b.lim.Elements {
		b.elements.add(k)
		b.pairsTold++
	} else {
		b.elementsCapped = true
	}
	return true
}

// clip copies a cell (rows are reused) and caps its length.
func clip(s string) string {
	return strings.Clone(textcap.Head(s, maxCellChars))
}

// keep is clip for a text the builder keeps, counted against lim.KeptText:
// once that is spent, texts are cut to maxCellCharsPastBudget.
func (b *Builder) keep(s string) string { return b.keepLike(s, "") }

// keepLike is keep, but when the kept text equals like (a text already
// kept: a page's organisation's name, its URL) it is like itself, not a
// copy; it counts against lim.KeptText all the same.
func (b *Builder) keepLike(s, like string) string {
	n := maxCellChars
	if b.textLeft <= 0 {
		n = maxCellCharsPastBudget
	}
	out := shared(textcap.Head(s, n), like)
	b.textLeft -= int64(len(out))
	return out
}

// shared is a copy of s (a row's cell, whose memory is the reader's), or
// like when equal.
func shared(s, like string) string {
	if s == like {
		return like
	}
	return strings.Clone(s)
}

// link is httpURL for a link the builder keeps, counted against
// lim.KeptText; none once that is spent. When it equals like (the
// address as kept) it is like itself, not a copy.
func (b *Builder) link(u, like string) string {
	if b.textLeft <= 0 {
		return ""
	}
	out := shared(httpLink(u), like)
	b.textLeft -= int64(len(out))
	return out
}

// maxLinkChars caps the addresses that become links: a longer one is shown
// (cut) but not linked, rather than linked to a cut, wrong address.
const maxLinkChars = 512

// httpURL keeps only http(s) links (weblink: CWAC writes axe's helpUrl and
// the pages' URLs) of at most maxLinkChars.
func httpURL(u string) string { return strings.Clone(httpLink(u)) }

// httpLink is httpURL without the copy.
func httpLink(u string) string {
	u = weblink.HTTP(u)
	if len(u) > maxLinkChars {
		return ""
	}
	return u
}
