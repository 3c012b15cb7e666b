package ingest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"

	"github.com/a11y-dev/cwac-operator/internal/diff"
)

// matchKey is where issues are matched: one page (its store id), viewport
// width and audit rule.
type matchKey struct {
	page  int64
	width int32
	rule  int32
}

// candidate is a stored issue that a row of this scan may be.
type candidate struct {
	id           int64
	html, target uint64
	fp           uint64 // the fingerprint's first 8 bytes
	open         bool
	claimed      bool // a row of this scan is this issue
}

// transitions are what one organisation's issues did in this scan.
type transitions struct {
	fixed, pageNotScanned, reopened []int64
	newIssues, stillOpen            int64
	unstable                        int64
	openBefore                      int64
}

// orgState is what processing one organisation needs from the store.
type orgState struct {
	id      int64
	pageIDs []int64 // store id of each of the scan's pages of this organisation (by reading.pages index)
	scanned map[int64]int32
	cands   map[matchKey][]candidate
}

// matchOrganisation decides the fate of every issue row of one
// organisation and every stored issue of it, by the baseline comparison's
// rules (diff.MatchElements): rows match the organisation's open issues on
// the same page, width and rule; rows left match its fixed issues there
// (reopened); the rest are new. Open issues left are fixed when the scan
// observed their audit on their page and width, fixed with the reason
// "page not scanned" when the scan did not visit their page, and left as
// they are otherwise (the audit did not run there: unstable).
func (in *ingestion) matchOrganisation(ctx context.Context, org int32, idx []int32, st *orgState) (transitions, error) {
	var tr transitions
	rd := in.rd
	for _, cs := range st.cands {
		for _, c := range cs {
			if c.open {
				tr.openBefore++
			}
		}
	}
	for start := 0; start < len(idx); {
		end := start + 1
		first := rd.recs.at(int(idx[start]))
		for end < len(idx) && sameRun(first, rd.recs.at(int(idx[end]))) {
			end++
		}
		run := idx[start:end]
		start = end
		key := matchKey{page: st.pageIDs[first.page], width: first.width, rule: first.rule}
		if !rd.observed(groupKey{audit: rd.ruleAuds[first.rule], page: first.page, width: first.width}) {
			tr.unstable += int64(len(run))
			continue // rows and stored issues alike: not compared
		}
		var tracked []int32
		for _, i := range run {
			if rd.recs.at(int(i)).body {
				tr.unstable++
				continue
			}
			tracked = append(tracked, i)
		}
		cands := st.cands[key]
		delete(st.cands, key)
		left := in.pair(tracked, cands, true, &tr)
		left = in.pair(left, cands, false, &tr)
		for _, c := range cands {
			if c.open && !c.claimed {
				tr.fixed = append(tr.fixed, c.id)
			}
		}
		in.newIssues(org, left, cands, &tr)
	}
	// Stored open issues no row of this scan could be.
	for key, cs := range st.cands {
		p, scanned := st.scanned[key.page]
		for _, c := range cs {
			switch {
			case !c.open:
			case !scanned:
				tr.pageNotScanned = append(tr.pageNotScanned, c.id)
			case rd.observed(groupKey{audit: rd.ruleAuds[key.rule], page: p, width: key.width}):
				tr.fixed = append(tr.fixed, c.id)
			}
		}
	}
	return tr, ctx.Err()
}

// sameRun reports whether two records are matched together.
func sameRun(a, b *record) bool {
	return a.page == b.page && a.width == b.width && a.rule == b.rule
}

// pair matches rows against the open (or the fixed) candidates and returns
// the rows left.
func (in *ingestion) pair(rows []int32, cands []candidate, open bool, tr *transitions) []int32 {
	if len(rows) == 0 {
		return rows
	}
	var base []diff.Element
	var at []int // index in cands of each element of base
	for i, c := range cands {
		if c.open == open && !c.claimed {
			base = append(base, diff.Element{HTML: c.html, Target: c.target})
			at = append(at, i)
		}
	}
	if len(base) == 0 {
		return rows
	}
	cur := make([]diff.Element, len(rows))
	for i, r := range rows {
		cur[i] = diff.Element{HTML: in.rd.recs.at(int(r)).html, Target: in.rd.recs.at(int(r)).target}
	}
	var left []int32
	for i, m := range diff.MatchElements(base, cur) {
		rec := in.rd.recs.at(int(rows[i]))
		if m.Base < 0 {
			left = append(left, rows[i])
			continue
		}
		c := &cands[at[m.Base]]
		c.claimed = true
		rec.issue = c.id
		switch {
		case !open:
			rec.fate = fateReopened
			tr.reopened = append(tr.reopened, rec.issue)
		case m.OnTarget:
			rec.fate = fateRetarget
			tr.stillOpen++
		default:
			rec.fate = fateOpen
			tr.stillOpen++
		}
	}
	return left
}

// newIssues gives rows no stored issue matched new issues, with
// fingerprints: a hash of the namespace, organisation, page, width, rule,
// element HTML and target, and the row's ordinal among identical rows
// (same HTML and target) in file order; a fingerprint already in use (an
// issue whose element has since changed) takes the next ordinal. Only an
// issue of the same page, width and rule (cands) can hold the same
// fingerprint: the others hashed another page, width or rule.
func (in *ingestion) newIssues(org int32, rows []int32, cands []candidate, tr *transitions) {
	if len(rows) == 0 {
		return
	}
	rd := in.rd
	slices.Sort(rows) // file order
	ordinal := map[[2]uint64]int{}
	taken := make(map[uint64]bool, len(cands)+len(rows))
	for _, c := range cands {
		taken[c.fp] = true
	}
	for _, r := range rows {
		rec := rd.recs.at(int(r))
		k := [2]uint64{rec.html, rec.target}
		n := ordinal[k]
		for {
			fp := fingerprint(in.scan.Namespace, rd.orgs[org].name, rd.pages[rec.page].key, rec.width, rd.strs.str(rec.rule), rec.html, rec.target, n)
			n++
			prefix := binary.BigEndian.Uint64(fp[:8])
			if taken[prefix] {
				continue
			}
			taken[prefix] = true
			rec.issue = in.w.IssueIDs(1)
			in.fps = append(in.fps, fp)
			break
		}
		ordinal[k] = n
		rec.fate = fateNew
		tr.newIssues++
	}
}

// fingerprintVersion starts every fingerprint's input, so that a change of
// the identity rules can never reuse an old fingerprint.
const fingerprintVersion = "cwac-issue-v1"

// fingerprint identifies an issue within the store: the namespace is in it
// because an organisation's history is its namespace's (two namespaces
// scanning one site keep two histories, and two fingerprints).
func fingerprint(namespace, org, page string, width int32, rule string, html, target uint64, ordinal int) [16]byte {
	h := sha256.New()
	var buf [8]byte
	for _, part := range []string{fingerprintVersion, namespace, org, page, strconv.Itoa(int(width)), rule} {
		binary.BigEndian.PutUint64(buf[:], uint64(len(part)))
		h.Write(buf[:])
		h.Write([]byte(part))
	}
	for _, v := range []uint64{html, target, uint64(ordinal)} {
		binary.BigEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	var out [16]byte
	copy(out[:], h.Sum(nil))
	return out
}

func fingerprintText(fp [16]byte) string { return hex.EncodeToString(fp[:]) }

// orderOrganisation sorts one organisation's record indexes into runs of
// the same page, width and rule, in file order within a run.
func orderOrganisation(rd *reading, idx []int32) {
	slices.SortFunc(idx, func(x, y int32) int {
		a, b := rd.recs.at(int(x)), rd.recs.at(int(y))
		return cmp.Or(cmp.Compare(a.page, b.page), cmp.Compare(a.width, b.width), cmp.Compare(a.rule, b.rule), cmp.Compare(x, y))
	})
}
