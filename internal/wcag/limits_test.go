package wcag

import "testing"

// TestUnderstandingURLCharacters pins the characters the address keeps: the
// ASCII letters and digits up to and including each end of their ranges,
// never the character just outside ('`' and '{' around a-z, '/' and ':'
// around 0-9), and a hyphen only between words, never leading.
func TestUnderstandingURLCharacters(t *testing.T) {
	const prefix = "https://www.w3.org/WAI/WCAG22/Understanding/"
	tests := []struct {
		name string
		want string
	}{
		{"`a{z", "az"},
		{"/0:9", "09"},
		{"A Z", "a-z"},
		{" Leading space", "leading-space"},
		{"- Leading hyphen", "leading-hyphen"},
		{"(Leading) bracket", "leading-bracket"},
		{"Trailing -", "trailing"},
		{"Two  spaces", "two-spaces"},
		{"Name, Role", "name-role"},
		{"é acute", "acute"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := (Criterion{Name: tt.name}).UnderstandingURL(); got != prefix+tt.want+".html" {
			t.Errorf("UnderstandingURL of %q = %s, want %s%s.html", tt.name, got, prefix, tt.want)
		}
	}
}

// TestForTagLimits pins the tag's length (3 or 4 digits after "wcag") and
// the digit range at both ends ('/' and ':' lie just outside '0'-'9').
func TestForTagLimits(t *testing.T) {
	tests := []struct {
		tag  string
		want string // the criterion's number, "" for none
	}{
		{"wcag11", ""},
		{"wcag111", "1.1.1"},
		{"wcag1410", "1.4.10"},
		{"wcag14100", ""},
		{"wcag/11", ""},
		{"wcag1/1", ""},
		{"wcag11/", ""},
		{"wcag:11", ""},
		{"wcag11:", ""},
		{"wcag141:", ""},
		{"wcag0111", ""},
		{"wcag319", ""},
		{"wcag339", "3.3.9"},
	}
	for _, tt := range tests {
		c, ok := ForTag(tt.tag)
		if ok != (tt.want != "") || c.Number != tt.want {
			t.Errorf("ForTag(%q) = %q, %v; want %q", tt.tag, c.Number, ok, tt.want)
		}
	}
}

// TestLessIsStrict: a number is never before itself, known or not, so Less
// is a strict order that sort functions may rely on.
func TestLessIsStrict(t *testing.T) {
	for _, n := range []string{"1.1.1", "1.4.10", "4.1.3", "9.9.9", ""} {
		if Less(n, n) {
			t.Errorf("Less(%q, %q) = true, want false", n, n)
		}
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{"1.1.1", "", true},
		{"", "1.1.1", false},
		{"", "9.9.9", true},
		{"9.9.9", "", false},
	}
	for _, tt := range tests {
		if got := Less(tt.a, tt.b); got != tt.want {
			t.Errorf("Less(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCriterionString(t *testing.T) {
	tests := map[string]string{
		"1.4.3":  "1.4.3 Contrast (Minimum) (AA)",
		"1.1.1":  "1.1.1 Non-text Content (A)",
		"1.4.6":  "1.4.6 Contrast (Enhanced) (AAA)",
		"4.1.1":  "4.1.1 Parsing (A)",
		"2.4.11": "2.4.11 Focus Not Obscured (Minimum) (AA)",
	}
	for n, want := range tests {
		c, ok := Lookup(n)
		if !ok {
			t.Fatalf("Lookup(%q) found nothing", n)
		}
		if got := c.String(); got != want {
			t.Errorf("%s: String() = %q, want %q", n, got, want)
		}
	}
}
