package surface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

// HoverInfo is everything the hover over a tool use or placeholder shows.
// The server fills it from the registry, the policy trace and the runner.
type HoverInfo struct {
	Tool  tools.Definition
	Known bool
	// Loading: the tool is unknown but tool sources are still loading.
	Loading  bool
	Input    map[string]any
	RawInput string // shown when Input is nil (the JSON did not parse)
	Decision string // one line, e.g. "require_approval — rule `bash` (user config.toml:3)"
	Trace    string // multi-line trace text from the policy
	Status   string
	// Queued, Started and Finished are the execution's times as far as the
	// server knows them (nil when unknown): queued waits for a free slot
	// (tools.maxConcurrent), started runs, finished has its result.
	Queued   *time.Time
	Started  *time.Time
	Finished *time.Time
	// Annotations are MCP tool hints: shown, never trusted for approval.
	Annotations map[string]any
	// RunsOn says where the call runs when the document has a target
	// ("target build", "this machine"); empty without one.
	RunsOn string
	// Effect is what the call would change, for a call not run yet (the
	// files and counts of a commit, the commits of a push).
	Effect string
}

// now is the clock for "running for …"; tests replace it.
var now = time.Now

// HoverMarkdown renders the hover as Markdown: heading with name and source,
// description, input as pretty JSON, decision and trace, status and timings,
// annotations.
func HoverMarkdown(h HoverInfo) string {
	var b strings.Builder
	name := h.Tool.Name
	if name == "" {
		name = "tool"
	}
	switch {
	case !h.Known && h.Loading:
		fmt.Fprintf(&b, "### `%s` · not known yet\n\nWaiting for tool definitions to load...\n", displayText(name))
	case !h.Known:
		fmt.Fprintf(&b, "### `%s` · unknown tool\n\nNo registered tool has this name; the call cannot run.\n", displayText(name))
	case h.Tool.Source != "":
		fmt.Fprintf(&b, "### `%s` · %s\n", displayText(name), displayText(h.Tool.Source))
	default:
		fmt.Fprintf(&b, "### `%s`\n", displayText(name))
	}
	if desc := strings.TrimSpace(h.Tool.Description); h.Known && desc != "" {
		b.WriteString("\n" + strings.ToValidUTF8(desc, "\uFFFD") + "\n")
	}
	if h.RunsOn != "" {
		b.WriteString("\n**Runs on:** " + displayText(h.RunsOn) + "\n")
	}
	if input := hoverInput(h); input != "" {
		b.WriteString("\n**Input**\n\n" + codeBlock("json", input))
	}
	if effect := strings.TrimSpace(h.Effect); effect != "" {
		b.WriteString("\n**What it will do**\n\n" + codeBlock("text", strings.ToValidUTF8(effect, "\uFFFD")))
	}
	if h.Decision != "" {
		b.WriteString("\n**Decision:** " + strings.ToValidUTF8(strings.TrimSpace(h.Decision), "\uFFFD") + "\n")
	}
	if trace := strings.TrimSpace(h.Trace); trace != "" {
		b.WriteString("\n" + codeBlock("text", trace))
	}
	if status := statusLine(h); status != "" {
		b.WriteString("\n**Status:** " + status + "\n")
	}
	if len(h.Annotations) > 0 {
		b.WriteString("\n**Annotations** (shown, never trusted for approval): " + annotationList(h.Annotations) + "\n")
	}
	return b.String()
}

// maxHoverInput bounds the input a hover shows: the head of it, cut at a
// line, and how much was left out. (Inputs nest at most
// chatdoc.InputMaxNesting levels, so the indented text grows linearly.)
const maxHoverInput = 8 << 10

// hoverInput is the decoded input as indented JSON (keys sorted), else the
// raw fence content; at most maxHoverInput bytes of it.
func hoverInput(h HoverInfo) string {
	text := strings.TrimSpace(h.RawInput)
	// A large input is shown as written (its head): pretty-printing it
	// whole only to cut it would cost time and memory for nothing.
	if h.Input != nil && len(h.RawInput) <= 4*maxHoverInput {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(h.Input) == nil {
			text = strings.TrimRight(buf.String(), "\n")
		}
	}
	if len(text) > maxHoverInput {
		cut := strings.LastIndexByte(text[:maxHoverInput], '\n')
		if cut <= 0 {
			cut = maxHoverInput
		}
		text = fmt.Sprintf("%s\n… (%d more bytes)", text[:cut], len(text)-cut)
	}
	return strings.ToValidUTF8(text, "\uFFFD")
}

// codeBlock fences content with one more backtick than its longest run, as
// the .chat writer does, so a JSON string holding a fence cannot break out.
func codeBlock(lang, content string) string {
	ticks := chatdoc.FenceFor(content)
	return ticks + lang + "\n" + content + "\n" + ticks + "\n"
}

// statusLine is the status, then the times known, e.g.
// "done · queued 2025-05-01 10:42:00, started 2025-05-01 10:42:01, finished
// 10:42:03 after 2.3s" or "running · started 2025-05-01 10:42:01, running for 3s".
func statusLine(h HoverInfo) string {
	var times []string
	if h.Queued != nil && (h.Started == nil || !h.Started.Equal(*h.Queued)) {
		times = append(times, "queued "+stamp(*h.Queued))
	}
	if h.Started != nil {
		times = append(times, "started "+stamp(*h.Started))
	}
	switch {
	case h.Started != nil && h.Finished != nil:
		times = append(times, fmt.Sprintf("finished %s after %s", laterStamp(*h.Started, *h.Finished), roundDuration(h.Finished.Sub(*h.Started))))
	case h.Finished != nil:
		times = append(times, "finished "+stamp(*h.Finished))
	case h.Started != nil:
		times = append(times, "running for "+roundDuration(now().Sub(*h.Started)))
	case h.Queued != nil:
		times = append(times, "waiting for a free slot for "+roundDuration(now().Sub(*h.Queued)))
	}
	status := displayTextOrEmpty(strings.TrimSpace(h.Status))
	switch {
	case len(times) == 0:
		return status
	case status == "":
		return strings.Join(times, ", ")
	}
	return status + " · " + strings.Join(times, ", ")
}

// laterStamp omits the date when it is the same as earlier's.
func laterStamp(earlier, later time.Time) string {
	if y, m, d := later.Date(); earlier.Year() == y && earlier.Month() == m && earlier.Day() == d {
		return later.Format("15:04:05")
	}
	return stamp(later)
}

func displayTextOrEmpty(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func stamp(t time.Time) string { return t.Format("2006-01-02 15:04:05") }

func roundDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// annotationList renders annotations sorted by key: `readOnlyHint`: true · …
func annotationList(a map[string]any) string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, err := json.Marshal(a[k])
		if err != nil {
			v = []byte(fmt.Sprint(a[k]))
		}
		parts = append(parts, fmt.Sprintf("`%s`: %s", displayText(k), strings.ToValidUTF8(string(v), "\uFFFD")))
	}
	return strings.Join(parts, " · ")
}
