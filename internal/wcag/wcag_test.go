package wcag

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func numbers(cs []Criterion) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Number)
	}
	return out
}

func TestCriteria(t *testing.T) {
	tests := []struct {
		name string
		tags []string
		want []string
	}{
		{"color-contrast as CWAC wrote it", []string{"cat.color", "wcag2aa", "wcag143", "TTv5", "TT13.c", "EN-301-549", "EN-9.1.4.3", "ACT", "RGAAv4", "RGAA-3.2.1"},
			[]string{"1.4.3"}},
		{"image-alt", []string{"cat.text-alternatives", "wcag2a", "wcag111", "section508", "section508.22.a", "ACT"}, []string{"1.1.1"}},
		{"two criteria, sorted as the Recommendation", []string{"wcag412", "wcag111", "wcag2a"}, []string{"1.1.1", "4.1.2"}},
		{"two-digit criterion", []string{"wcag21aa", "wcag1410"}, []string{"1.4.10"}},
		{"WCAG 2.2 criteria", []string{"wcag22aa", "wcag258", "wcag2411", "wcag2413", "wcag339"}, []string{"2.4.11", "2.4.13", "2.5.8", "3.3.9"}},
		{"1.4.9 before 1.4.10", []string{"wcag1410", "wcag149"}, []string{"1.4.9", "1.4.10"}},
		{"duplicates once", []string{"wcag111", " wcag111 ", "wcag111"}, []string{"1.1.1"}},
		{"best practice names none", []string{"cat.keyboard", "best-practice"}, []string{}},
		{"levels, EN, ACT, TT and experimental name none",
			[]string{"wcag2a", "wcag2aa", "wcag2aaa", "wcag21a", "wcag22aa", "EN-9.1.1.1", "ACT", "TT7.a", "experimental"}, []string{}},
		{"numbers WCAG does not have", []string{"wcag999", "wcag15", "wcag11111", "wcag1", "wcag", "wcag0.1", "WCAG111", "xwcag111"}, []string{}},
		{"removed 4.1.1 still known", []string{"wcag411"}, []string{"4.1.1"}},
		{"no tags", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, numbers(Criteria(tt.tags))); diff != "" {
				t.Errorf("Criteria(%q) (-want +got):\n%s", tt.tags, diff)
			}
		})
	}
}

func TestForTag(t *testing.T) {
	tests := []struct {
		tag  string
		want Criterion
		ok   bool
	}{
		{"wcag111", Criterion{Number: "1.1.1", Name: "Non-text Content", Level: LevelA}, true},
		{"wcag143", Criterion{Number: "1.4.3", Name: "Contrast (Minimum)", Level: LevelAA}, true},
		{"wcag1410", Criterion{Number: "1.4.10", Name: "Reflow", Level: LevelAA}, true},
		{"wcag2411", Criterion{Number: "2.4.11", Name: "Focus Not Obscured (Minimum)", Level: LevelAA}, true},
		{"wcag258", Criterion{Number: "2.5.8", Name: "Target Size (Minimum)", Level: LevelAA}, true},
		{"wcag146", Criterion{Number: "1.4.6", Name: "Contrast (Enhanced)", Level: LevelAAA}, true},
		{"wcag326", Criterion{Number: "3.2.6", Name: "Consistent Help", Level: LevelA}, true},
		{"wcag412", Criterion{Number: "4.1.2", Name: "Name, Role, Value", Level: LevelA}, true},
		{"wcag411", Criterion{Number: "4.1.1", Name: "Parsing", Level: LevelA, Removed: true}, true},
		{"best-practice", Criterion{}, false},
		{"cat.aria", Criterion{}, false},
		{"wcag2aa", Criterion{}, false},
		{"EN-301-549", Criterion{}, false},
		{"ACT", Criterion{}, false},
		{"wcag414", Criterion{}, false},
	}
	for _, tt := range tests {
		got, ok := ForTag(tt.tag)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ForTag(%q) = %+v, %v; want %+v, %v", tt.tag, got, ok, tt.want, tt.ok)
		}
	}
}

// TestTable checks the table's shape: WCAG 2.2 has 87 numbered criteria
// (86 in force and 4.1.1, removed), numbers unique and in order, and the
// level counts of the Recommendation.
func TestTable(t *testing.T) {
	all := All()
	if len(all) != 87 {
		t.Errorf("table has %d criteria, want 87", len(all))
	}
	levels := map[Level]int{}
	for i, c := range all {
		if c.Name == "" || strings.TrimSpace(c.Name) != c.Name {
			t.Errorf("%s: bad name %q", c.Number, c.Name)
		}
		if i > 0 && !Less(all[i-1].Number, c.Number) {
			t.Errorf("%s is not after %s", c.Number, all[i-1].Number)
		}
		if !c.Removed {
			levels[c.Level]++
		}
	}
	// 31 A, 24 AA, 31 AAA in WCAG 2.2 without 4.1.1.
	if diff := cmp.Diff(map[Level]int{LevelA: 31, LevelAA: 24, LevelAAA: 31}, levels); diff != "" {
		t.Errorf("criteria per level (-want +got):\n%s", diff)
	}
	all[0].Name = "changed"
	if c, _ := Lookup("1.1.1"); c.Name != "Non-text Content" {
		t.Error("All returned the table itself, not a copy")
	}
}

func TestLess(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1.4.9", "1.4.10", true}, {"1.4.10", "1.4.9", false}, {"4.1.3", "9.9.9", true}, {"9.9.9", "1.1.1", false}, {"9.9.8", "9.9.9", true},
	}
	for _, tt := range tests {
		if got := Less(tt.a, tt.b); got != tt.want {
			t.Errorf("Less(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

func TestUnderstandingURL(t *testing.T) {
	tests := map[string]string{
		"1.4.3":  "https://www.w3.org/WAI/WCAG22/Understanding/contrast-minimum.html",
		"2.2.2":  "https://www.w3.org/WAI/WCAG22/Understanding/pause-stop-hide.html",
		"3.3.4":  "https://www.w3.org/WAI/WCAG22/Understanding/error-prevention-legal-financial-data.html",
		"2.2.5":  "https://www.w3.org/WAI/WCAG22/Understanding/re-authenticating.html",
		"1.2.1":  "https://www.w3.org/WAI/WCAG22/Understanding/audio-only-and-video-only-prerecorded.html",
		"4.1.2":  "https://www.w3.org/WAI/WCAG22/Understanding/name-role-value.html",
		"2.4.7":  "https://www.w3.org/WAI/WCAG22/Understanding/focus-visible.html",
		"1.1.1":  "https://www.w3.org/WAI/WCAG22/Understanding/non-text-content.html",
		"2.4.11": "https://www.w3.org/WAI/WCAG22/Understanding/focus-not-obscured-minimum.html",
	}
	for n, want := range tests {
		c, ok := Lookup(n)
		if !ok {
			t.Fatalf("Lookup(%q) found nothing", n)
		}
		if got := c.UnderstandingURL(); got != want {
			t.Errorf("%s: %s, want %s", n, got, want)
		}
	}
}

// FuzzForTag: any tag either names no criterion or one whose number, written
// without dots after "wcag", is the tag again.
func FuzzForTag(f *testing.F) {
	for _, s := range []string{"wcag111", "wcag1410", "wcag2aa", "best-practice", "wcag", "wcag٣١١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		c, ok := ForTag(tag)
		if ok && "wcag"+strings.ReplaceAll(c.Number, ".", "") != tag {
			t.Errorf("ForTag(%q) = %s", tag, c.Number)
		}
	})
}
