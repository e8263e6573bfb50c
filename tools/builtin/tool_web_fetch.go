package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/tools"
	"golang.org/x/net/html/charset"
)

const (
	defaultFetchBytes = 50 * 1024
	maxFetchBytes     = 5 << 20
	maxRedirects      = 10
)

type webFetchTool struct {
	readsOnly
	client *http.Client
}

func newWebFetchTool(allowHosts []string, client *http.Client) webFetchTool {
	if client == nil {
		client = guardedHTTPClient(allowHosts)
	}
	return webFetchTool{client: client}
}

var webFetchDefinition = define(tools.Definition{
	Name: "web_fetch",
	Description: "Fetch a URL with HTTP GET and return its content as readable text (HTML is converted). " +
		"Loopback, private and link-local addresses are refused unless allowed by tools.web_fetch.allowHosts.",
},
	required("url", "string", "The http or https URL to fetch"),
	optional("maxBytes", "integer", fmt.Sprintf("Maximum bytes of text to return (default %d, at most %d)", defaultFetchBytes, maxFetchBytes)).with("minimum", 1),
)

func (webFetchTool) Definition() tools.Definition { return webFetchDefinition() }

func (webFetchTool) Preview(in map[string]any) string {
	url, _ := tools.StringArg(in, "url")
	if n, ok := tools.NumberArg(in, "maxBytes"); ok {
		return previewParts(url, "(max "+tools.FormatSize(int64(n))+")")
	}
	return url
}

func (webFetchTool) RetrySafe(map[string]any) bool { return true }

func (webFetchTool) Fileless() {}

func (t webFetchTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	raw, _ := tools.StringArg(call.Input, "url")
	limit, ok := tools.IntArg(call.Input, "maxBytes")
	if !ok || limit <= 0 {
		limit = defaultFetchBytes
	}
	limit = min(limit, maxFetchBytes)
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errorResult("Invalid URL %q: only http and https URLs can be fetched", raw)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return errorResult("Invalid URL %q: %v", raw, err)
	}
	req.Header.Set("User-Agent", "chatls-web_fetch/1 (+https://github.com/chatls/chatls)")
	req.Header.Set("Accept", "text/html, text/plain, application/json, */*;q=0.5")
	report := func(string) {}
	if env.Progress != nil {
		report = func(line string) { env.Progress(tools.Progress{LastLine: line}) }
	}
	report("GET " + u.String())
	resp, err := t.client.Do(req)
	if err != nil {
		res := errorResult("Fetching %s failed: %v", u, unwrapURLError(err))
		res.Transient = ctx.Err() == nil // a connection error, not our cancel
		return res
	}
	defer resp.Body.Close()

	// Read a bounded amount: enough raw HTML to fill limit bytes of text.
	rawLimit := int64(min(limit*8, maxFetchBytes*2))
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body, err := charset.NewReader(io.LimitReader(resp.Body, rawLimit+1), resp.Header.Get("Content-Type"))
	if err != nil {
		body = io.LimitReader(resp.Body, rawLimit+1)
	}
	data, err := io.ReadAll(&progressReader{r: body, report: func(n int64) {
		report(fmt.Sprintf("%s from %s", tools.FormatSize(n), resp.Request.URL.Host))
	}})
	if err != nil && len(data) == 0 {
		return errorResult("Reading %s failed: %v", u, err)
	}
	final := resp.Request.URL.String()

	var text string
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml" || (mediaType == "" && looksLikeHTML(data)):
		text = htmlToText(data)
	case strings.HasPrefix(mediaType, "text/") || strings.HasSuffix(mediaType, "json") || strings.HasSuffix(mediaType, "xml") || mediaType == "" && !looksBinary(data[:min(len(data), 8192)]):
		text = tools.DocumentText(string(data))
	default:
		return tools.Result{Text: fmt.Sprintf("[Binary content from %s (%s) not shown.]", final, mediaType), IsError: resp.StatusCode >= 400}
	}
	header := ""
	if final != u.String() {
		header = "Redirected to " + final + "\n\n"
	}
	cut := ""
	if len(text) > limit {
		text = clip.Head(text, limit)
		cut = fmt.Sprintf("\n\n[Content cut at %d bytes. Use maxBytes to get more.]", limit)
	}
	if resp.StatusCode >= 400 {
		return tools.Result{Text: fmt.Sprintf("HTTP %s\n\n%s%s%s", resp.Status, header, text, cut), IsError: true, Transient: resp.StatusCode >= 500}
	}
	return tools.Result{Text: header + strings.TrimSpace(text) + cut}
}

// progressReader reports the bytes read so far (for Progress.LastLine).
type progressReader struct {
	r      io.Reader
	n      int64
	report func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if n > 0 {
		p.report(p.n)
	}
	return n, err
}

func looksLikeHTML(data []byte) bool {
	head := strings.ToLower(string(data[:min(len(data), 512)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// guardedHTTPClient refuses loopback, private, link-local and other internal
// addresses at connect time, after DNS resolution (so a name that resolves to
// 127.0.0.1, or DNS rebinding between check and use, is still refused), for
// every redirect hop too. Hosts in allowHosts skip the check. Proxies from
// the environment are ignored: a proxy would connect on our behalf unchecked.
func guardedHTTPClient(allowHosts []string) *http.Client {
	allow := newHostAllowList(allowHosts)
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	guarded := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip := net.ParseIP(host)
			if ip == nil {
				return fmt.Errorf("refusing to connect to %s: not an IP address", address)
			}
			if allow.allowsIP(ip) {
				return nil
			}
			if reason := internalAddress(ip); reason != "" {
				return fmt.Errorf("refusing to connect to %s (%s address); add the host to tools.web_fetch.allowHosts to allow it", ip, reason)
			}
			return nil
		},
	}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err == nil && allow.allowsHost(host) {
				return dialer.DialContext(ctx, network, addr)
			}
			return guarded.DialContext(ctx, network, addr)
		},
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConns:          10,
		IdleConnTimeout:       60 * time.Second,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   60 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("refusing redirect to %s", req.URL.Scheme)
			}
			return nil
		},
	}
}

// internalAddress names the kind of a non-public address, or "" for public.
func internalAddress(ip net.IP) string {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
		if v4[0] == 100 && v4[1]&0xc0 == 64 {
			return "shared (CGNAT)"
		}
		if v4[0] == 0 {
			return "unspecified"
		}
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast():
		return "multicast"
	}
	return ""
}

// hostAllowList holds tools.web_fetch.allowHosts: names, IPs and CIDRs.
type hostAllowList struct {
	names map[string]bool
	nets  []*net.IPNet
}

func newHostAllowList(hosts []string) hostAllowList {
	a := hostAllowList{names: map[string]bool{}}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, n, err := net.ParseCIDR(h); err == nil {
			a.nets = append(a.nets, n)
			continue
		}
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if ip := net.ParseIP(h); ip != nil {
			bits := 128
			if ip.To4() != nil {
				ip, bits = ip.To4(), 32
			}
			a.nets = append(a.nets, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		if h != "" {
			a.names[h] = true
		}
	}
	return a
}

func (a hostAllowList) allowsHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if a.names[host] {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return a.allowsIP(ip)
	}
	return false
}

func (a hostAllowList) allowsIP(ip net.IP) bool {
	for _, n := range a.nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}
