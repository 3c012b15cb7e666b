package diff

import (
	"context"
	"io/fs"
	"testing"
)

// openCounter counts the opens of each file of a results directory.
type openCounter struct {
	fs.FS
	opens map[string]int
}

func (o *openCounter) Open(name string) (fs.File, error) {
	o.opens[name]++
	return o.FS.Open(name)
}

// Stat is not an open: the comparison sizes the CSVs before it reads them.
func (o *openCounter) Stat(name string) (fs.FileInfo, error) { return fs.Stat(o.FS, name) }

// TestBaselineReadAgainOnlyToList: the baseline's CSV of an audit is read
// a second time, to list its rows, only when some of its issues are fixed
// or unstable; the rows listed are those the comparison counted.
func TestBaselineReadAgainOnlyToList(t *testing.T) {
	both := []string{pageA, pageB}
	a := axe("O", pageA, "/a", "r", "minor", "<a>", 1)
	b := axe("O", pageB, "/b", "r", "minor", "<b>", 1)
	cur := scanDir{log: both, axe: [][]string{a, b}}
	tests := []struct {
		name            string
		base, cur       scanDir
		opens           int // of the baseline's axe CSV: its header looked at, read, read again
		fixed, unstable int64
	}{
		{"every issue found again", cur, cur, 2, 0, 0},
		{"an issue fixed", scanDir{log: both, axe: [][]string{a, b, axe("O", pageA, "/c", "r", "minor", "<c>", 1)}}, cur, 3, 1, 0},
		{"a row with fewer issues", scanDir{log: both, axe: [][]string{axe("O", pageA, "/a", "r", "minor", "<a>", 3), b}}, cur, 3, 2, 0},
		{"a page the scan has no result for", cur, scanDir{log: both, axe: [][]string{b}}, 3, 0, 1},
		{"only the scan's issues new", scanDir{log: both, axe: [][]string{passing(), b}}, cur, 2, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, spill := range []bool{false, true} {
				base := &openCounter{FS: tt.base.fs(), opens: map[string]int{}}
				opts := Options{}
				if spill {
					opts.SpillDir, opts.partitionBytes = t.TempDir(), 1
				}
				var fixed, unstable int64
				opts.Rows = func(r *Row) error {
					switch r.Change {
					case ChangeFixed:
						fixed += r.Issues
					case ChangeUnstable:
						unstable += r.Issues
					}
					return nil
				}
				res, err := Compare(context.Background(), base, tt.cur.fs(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := base.opens[axeFile]; got != tt.opens {
					t.Errorf("spilled %t: the baseline's CSV opened %d times, want %d", spill, got, tt.opens)
				}
				tot := res.Totals
				if fixed != tt.fixed || res.Counts.Fixed != tt.fixed || tot.UnstableBaseline != tt.unstable || unstable != tot.UnstableBaseline+tot.UnstableCurrent {
					t.Errorf("spilled %t: rows list %d fixed, %d unstable; counted %d fixed, %d+%d unstable; want %d fixed, %d unstable in the baseline",
						spill, fixed, unstable, res.Counts.Fixed, tot.UnstableBaseline, tot.UnstableCurrent, tt.fixed, tt.unstable)
				}
			}
		})
	}
}
