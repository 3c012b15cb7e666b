package weblink

import "testing"

func TestHTTP(t *testing.T) {
	for in, want := range map[string]string{
		"https://dequeuniversity.com/rules/axe/4.13/color-contrast": "https://dequeuniversity.com/rules/axe/4.13/color-contrast",
		"  http://127.0.0.1:8765/form.html\n":                       "http://127.0.0.1:8765/form.html",
		"HTTPS://A.EXAMPLE/":                                        "HTTPS://A.EXAMPLE/",
		"javascript:alert(document.domain)//https://x":              "",
		"JavaScript://%0aalert(1)":                                  "",
		"data:text/html,<script>alert(1)</script>":                  "",
		"file:///etc/passwd":                                        "",
		"mailto:x@a.example":                                        "",
		"//a.example/p":                                             "",
		"/relative":                                                 "",
		"https://":                                                  "",
		"":                                                          "",
	} {
		if got := HTTP(in); got != want {
			t.Errorf("HTTP(%q) = %q, want %q", in, got, want)
		}
	}
}
