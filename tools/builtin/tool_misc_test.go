package builtin

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/tools"
)

func TestCalculator(t *testing.T) {
	tests := map[string]string{
		"17 * 23":            "391",
		"2 + 3 * 4":          "14",
		"(2 + 3) * 4":        "20",
		"-2^2":               "-4",
		"2^3^2":              "512",
		"2 ** 10":            "1024",
		"-(3 - 5)":           "2",
		"10 % 4":             "2",
		"7 / 2":              "3.5",
		"0.1 + 0.2":          "0.30000000000000004",
		"1e3 + 1":            "1001",
		"sqrt(16) + abs(-2)": "6",
		"2 * pi":             "6.283185307179586",
		"1_000 * 3":          "3000",
		"--5":                "5",
	}
	env := testEnv(t)
	for expr, want := range tests {
		res := run(t, env, "calculator", map[string]any{"expression": expr})
		if res.Text != want || res.IsError {
			t.Errorf("%s = %q (error %v), want %s", expr, res.Text, res.IsError, want)
		}
	}
	errorsWanted := map[string]string{
		"1 / 0":      "division by zero",
		"2 +":        "unexpected end of expression",
		"(1 + 2":     "missing closing parenthesis",
		"os.exit(1)": `unknown name "os"`,
		"1 2":        `unexpected '2' at position 3`,
		"":           "empty expression",
		"10 ^ 400":   "result is too large",
		"1e400":      "number 1e400 is too large",
		"2 * 1e400":  "number 1e400 is too large",
		"sqrt 4":     "sqrt needs parentheses: sqrt(x)",
		strings.Repeat("(", 4000) + "1" + strings.Repeat(")", 4000): "expression nested too deeply",
		strings.Repeat("-", 5000) + "1":                             "expression nested too deeply",
	}
	for expr, want := range errorsWanted {
		res := run(t, env, "calculator", map[string]any{"expression": expr})
		if !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%.30s: %q, want error containing %q", expr, res.Text, want)
		}
	}
}

func TestTime(t *testing.T) {
	fixed := time.Date(2025, 3, 4, 5, 6, 7, 8_000_000, time.FixedZone("X", 3600))
	reg := tools.NewRegistry(Tools(Options{Now: func() time.Time { return fixed }}))
	r := tools.NewRunner(reg)
	for format, want := range map[string]string{
		"":         "2025-03-04T05:06:07+01:00",
		"iso":      "2025-03-04T05:06:07+01:00",
		"epoch":    "1741061167",
		"epoch_ms": "1741061167008",
		"rfc2822":  "Tue, 04 Mar 2025 05:06:07 +0100",
		"date":     "2025-03-04",
		"time":     "05:06:07",
	} {
		in := map[string]any{}
		if format != "" {
			in["format"] = format
		}
		res := r.Run(t.Context(), tools.Call{ID: "t", Name: "time", Input: in}, testEnv(t))
		if res.Text != want {
			t.Errorf("%q: %q, want %q", format, res.Text, want)
		}
	}
}

func TestWebFetch(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Demo  page</title><style>p{}</style></head>
<body><nav>Home | About</nav><h1>Hello</h1><p>First <b>bold</b> paragraph
with   spaces.</p><script>alert(1)</script><ul><li>one</li><li>two</li></ul>
<p>A <a href="https://example.com/x">link</a>.</p><pre>  keep
    indent</pre><footer>foot</footer></body></html>`)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusNotFound) })
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte{0, 1, 2})
	})
	mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/loop/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
		if n >= 10 {
			fmt.Fprint(w, "arrived")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	host := strings.Split(strings.TrimPrefix(srv.URL, "http://"), ":")[0]

	allowed := tools.NewRunner(tools.NewRegistry(Tools(Options{WebFetchAllowHosts: []string{host}})))
	fetch := func(r *tools.Runner, input map[string]any) tools.Result {
		return r.Run(t.Context(), tools.Call{ID: "w", Name: "web_fetch", Input: input}, testEnv(t))
	}
	res := fetch(allowed, map[string]any{"url": srv.URL + "/page"})
	wantText(t, res, "# Demo page\n\n# Hello\n\nFirst bold paragraph with spaces.\n\n- one\n- two\n\nA link (https://example.com/x).\n\n  keep\n    indent")

	res = fetch(allowed, map[string]any{"url": srv.URL + "/page", "maxBytes": 10})
	wantText(t, res, "# Demo pag\n\n[Content cut at 10 bytes. Use maxBytes to get more.]")
	wantText(t, fetch(allowed, map[string]any{"url": srv.URL + "/latin1"}), "café")
	res = fetch(allowed, map[string]any{"url": srv.URL + "/missing"})
	if !res.IsError || res.Text != "HTTP 404 Not Found\n\ngone\n" {
		t.Errorf("404: %+v", res)
	}
	wantContains(t, fetch(allowed, map[string]any{"url": srv.URL + "/bin"}), "[Binary content from ", "(application/octet-stream) not shown.]")
	wantText(t, fetch(allowed, map[string]any{"url": srv.URL + "/hop/0"}), "Redirected to "+srv.URL+"/hop/10\n\narrived")
	res = fetch(allowed, map[string]any{"url": srv.URL + "/loop/0"})
	if !res.IsError || !strings.Contains(res.Text, "stopped after 10 redirects") {
		t.Errorf("redirect loop: %q", res.Text)
	}
	wantText(t, fetch(allowed, map[string]any{"url": "file:///etc/passwd"}), `Invalid URL "file:///etc/passwd": only http and https URLs can be fetched`)

	// Default: loopback refused, also through a name that resolves to it.
	refused := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
	for _, u := range []string{srv.URL + "/page", strings.Replace(srv.URL, host, "localhost", 1) + "/page", "http://[::1]:1/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1:1/"} {
		res := fetch(refused, map[string]any{"url": u})
		if !res.IsError || !strings.Contains(res.Text, "refusing to connect to") || !strings.Contains(res.Text, "tools.web_fetch.allowHosts") {
			t.Errorf("%s: %q", u, res.Text)
		}
	}
}

func TestWebFetchRedirectToInternalAddressIsRefused(t *testing.T) {
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	defer internal.Close()
	// The "public" server is reachable only by its allowed name; it redirects to 127.0.0.1.
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL, http.StatusFound)
	}))
	defer public.Close()
	pu, _ := url.Parse(public.URL)
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{WebFetchAllowHosts: []string{"localhost"}})))
	res := r.Run(t.Context(), tools.Call{ID: "w", Name: "web_fetch", Input: map[string]any{"url": "http://localhost:" + pu.Port()}}, testEnv(t))
	if !res.IsError || !strings.Contains(res.Text, "refusing to connect to 127.0.0.1") {
		t.Errorf("got %q", res.Text)
	}
}
