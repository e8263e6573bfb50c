package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/chatls/chatls/internal/workers"
)

// findingsAtTheEnd are calls no editor could run, without results: a tool
// no one declares, an input that breaks its tool's schema (a misspelt key)
// and one that is not JSON (an error).
const findingsAtTheEnd = "\n@Assistant:\n**Tool Use:** `nosuchtool` (`toolu_m1`)\n```json\n{\"a\":1}\n```\n\n" +
	"**Tool Use:** `read` (`toolu_m2`)\n```json\n{\"path\":\"a\",\"ofset\":3}\n```\n\n" +
	"**Tool Use:** `read` (`toolu_m3`)\n```json\n{\"path\":\n```\n"

// writeMappable writes a generated conversation of twice mapMin with the
// findings at its end, and returns its name.
func writeMappable(t *testing.T, dir, base string) string {
	t.Helper()
	name := filepath.Join(dir, base)
	if err := os.WriteFile(name, []byte(chatgen.Generate(2*mapMin, 5)+findingsAtTheEnd), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func mapped(t *testing.T, name string) *mappedText {
	t.Helper()
	m, _, err := openText(name)
	if err != nil || m == nil {
		t.Fatalf("%s was not mapped: %v", name, err)
	}
	t.Cleanup(m.close)
	return m
}

// The report on a mapped file is the report on a copy of it.
func TestCheckOfAMappedFileEqualsCheckOfACopy(t *testing.T) {
	name := writeMappable(t, t.TempDir(), "big.chat")
	got, gotErrors, err := checkMapped(name, mapped(t, name))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	want, wantErrors := reportOn(name, text)
	if !bytes.Equal(got, want) || gotErrors != wantErrors {
		t.Fatalf("mapped (errors %v):\n%s\ncopy (errors %v):\n%s", gotErrors, got, wantErrors, want)
	}
	for _, finding := range []string{"nosuchtool", "ofset", "error: Failed to parse tool input", "no result yet"} {
		if !strings.Contains(string(got), finding) {
			t.Errorf("the report misses %q:\n%s", finding, got)
		}
	}
}

// A file truncated under its mapping (an editor saving in place) makes
// reading its lost pages fault. The check turns the fault into a panic
// that says where, recovers it, and checks what the file now holds from a
// copy.
func TestCheckSurvivesAFileTruncatedUnderItsMapping(t *testing.T) {
	name := writeMappable(t, t.TempDir(), "big.chat")
	m := mapped(t, name)
	now := "@You:\nread this\n\n@Assistant:\n**Tool Use:** `nosuchtool2` (`toolu_n1`)\n```json\n{}\n```\n"
	if err := os.WriteFile(name, []byte(now), 0o644); err != nil {
		t.Fatal(err)
	}

	var lost any
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { lost = recover() }()
		sinkByte = m.data[len(m.data)-1]
	}()
	if !m.faultedIn(lost) {
		t.Fatalf("reading a lost page: %v, want a fault inside the mapping", lost)
	}

	if err := m.guard(func() { reportOn(name, m.data) }); !errors.Is(err, errChanged) {
		t.Fatalf("checking the mapping: %v, want %v", err, errChanged)
	}
	report, hasErrors, err := checkMapped(name, m)
	if err != nil || hasErrors || !strings.Contains(string(report), "nosuchtool2") || strings.Contains(string(report), "ofset") {
		t.Fatalf("got (%v, %v):\n%s\nwant the report on the file's new text", hasErrors, err, report)
	}
}

var sinkByte byte

// A page lost to a truncation may be read on a goroutine the parse or the
// tool diagnostics started (when the file shrinks during the check): the
// fault reaches the guard through internal/workers, which raises it again
// in the caller, and the guard recovers it as a change.
func TestAFaultOnAWorkerReachesTheGuard(t *testing.T) {
	name := writeMappable(t, t.TempDir(), "big.chat")
	m := mapped(t, name)
	if err := os.Truncate(name, int64(len(m.data)/2)); err != nil {
		t.Fatal(err)
	}
	var raised any
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { raised = recover() }()
		workers.Run(func() {}, func() { sinkByte = m.data[len(m.data)-1] })
	}()
	if p, ok := raised.(*workers.Panic); !ok || !m.faultedIn(p) {
		t.Fatalf("raised %T %v, want a worker's fault inside the mapping", raised, raised)
	}
	err := m.guard(func() { workers.Run(func() {}, func() { sinkByte = m.data[len(m.data)-1] }) })
	if !errors.Is(err, errChanged) {
		t.Fatalf("guard: %v, want %v", err, errChanged)
	}
}

// A panic while checking an unchanged file is a bug: it goes on.
func TestCheckRaisesAPanicOfAnUnchangedFile(t *testing.T) {
	name := writeMappable(t, t.TempDir(), "big.chat")
	m := mapped(t, name)
	defer func() {
		if v := recover(); v != "a bug" {
			t.Fatalf("recovered %v, want the panic itself", v)
		}
	}()
	m.guard(func() { panic("a bug") })
	t.Fatal("guard returned")
}

// Each file is unmapped once reported on. The second file, small and
// read, holds the first's findings, so what the tool registry remembers
// from the first (verdicts, compiled schemas) is used again: if it pointed
// into the unmapped first file, the second check would fault.
func TestCheckAfterAnUnmappedFileWithTheSameFindings(t *testing.T) {
	dir := t.TempDir()
	big := writeMappable(t, dir, "big.chat")
	small := filepath.Join(dir, "small.chat")
	if err := os.WriteFile(small, []byte(findingsAtTheEnd), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runCheck([]string{big, small}, &out, &errOut); code != 1 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	findings := map[string][]string{} // file → "severity: message" of each line
	for line := range strings.Lines(out.String()) {
		file, rest, _ := strings.Cut(line, ":")
		_, rest, _ = strings.Cut(rest, ": ") // line:col
		findings[file] = append(findings[file], rest)
	}
	if len(findings[small]) < 4 || !slices.Equal(findings[small], findings[big][len(findings[big])-len(findings[small]):]) {
		t.Fatalf("the small file's findings are not the big one's last:\n%s", out.String())
	}
}
