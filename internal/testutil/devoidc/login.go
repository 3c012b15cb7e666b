package devoidc

import (
	"context"
	"html/template"
	"net/http"
	"strings"
)

// loginPage asks for a development user's email and the password, then
// sends the browser back to the library's callback, which redirects to
// the client with a code.
type loginPage struct {
	store      *storage
	callback   func(context.Context, string) string
	formAction string
}

type loginData struct {
	RequestID, Email, Error string
}

// The page: server-rendered, no script, labelled fields, and a plain
// statement that this is a development provider.
var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Error}}Error: {{end}}Sign in (local development provider)</title>
<link rel="stylesheet" href="/login.css">
</head>
<body>
<main>
<h1>Sign in</h1>
<p class="dev"><strong>For local development only.</strong> This provider's users and password
are set when it is started on this machine; it is never a provider for a real deployment.</p>
{{if .Error}}<p class="error" id="error" role="alert">{{.Error}}</p>{{end}}
{{if .RequestID}}<form method="post" action="/login">
<input type="hidden" name="authRequestID" value="{{.RequestID}}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="{{.Email}}"
{{- if .Error}} aria-invalid="true" aria-describedby="error" autofocus{{end}}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required{{if .Error}} aria-invalid="true" aria-describedby="error"{{end}}>
<button type="submit">Sign in</button>
</form>{{end}}
</main>
</body>
</html>
`))

const loginCSS = `body{margin:0;font:1rem/1.5 system-ui,sans-serif;color:#1a1a1a;background:#fff}
main{max-width:26rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0}
.dev{border-left:4px solid #8a4b00;padding:.25rem .75rem;background:#fff4e5}
.error{color:#a00000;font-weight:bold}
label{display:block;margin-top:1rem;font-weight:bold}
input{display:block;box-sizing:border-box;width:100%;padding:.5rem;font:inherit;border:1px solid #555;border-radius:3px}
button{margin-top:1.25rem;padding:.5rem 1.25rem;font:inherit;color:#fff;background:#1d4ed8;border:0;border-radius:3px;cursor:pointer}
:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}
`

// maxForm bounds the login form's body.
const maxForm = 8 << 10

// Messages the page shows.
const (
	msgUnknownRequest = "This sign-in has expired or was not started here: go back to the application and sign in again."
	msgWrongPassword  = "The email or password is wrong."
)

func (l *loginPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		id := r.URL.Query().Get("authRequestID")
		if _, err := l.store.AuthRequestByID(r.Context(), id); err != nil {
			l.render(w, http.StatusBadRequest, loginData{Error: msgUnknownRequest})
			return
		}
		l.render(w, http.StatusOK, loginData{RequestID: id})
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			l.render(w, http.StatusBadRequest, loginData{Error: "The form could not be read: " + err.Error()})
			return
		}
		id, email := r.PostForm.Get("authRequestID"), strings.TrimSpace(r.PostForm.Get("email"))
		known, ok := l.store.signIn(id, email, r.PostForm.Get("password"))
		switch {
		case !known:
			l.render(w, http.StatusBadRequest, loginData{Error: msgUnknownRequest})
		case !ok:
			l.render(w, http.StatusBadRequest, loginData{RequestID: id, Email: email, Error: msgWrongPassword})
		default:
			http.Redirect(w, r, l.callback(r.Context(), id), http.StatusSeeOther)
		}
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (l *loginPage) render(w http.ResponseWriter, status int, d loginData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action "+l.formAction+
		"; frame-ancestors 'none'; base-uri 'none'")
	setCommonHeaders(h)
	w.WriteHeader(status)
	_ = loginTemplate.Execute(w, d)
}

func serveCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	setCommonHeaders(w.Header())
	_, _ = w.Write([]byte(loginCSS))
}

func setCommonHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}
