package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/internal/tooltest"
	"github.com/chatls/chatls/tools"
)

func TestRead(t *testing.T) {
	env := testEnv(t)
	var lines []string
	for i := 1; i <= 3000; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	testfs.Write(t, filepath.Join(env.Dir, "big.txt"), strings.Join(lines, "\n")+"\n")
	testfs.Write(t, filepath.Join(env.Dir, "small.txt"), "one\ntwo\nthree")
	testfs.Write(t, filepath.Join(env.Dir, "empty.txt"), "")
	testfs.Write(t, filepath.Join(env.Dir, "image.png"), "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	testfs.Write(t, filepath.Join(env.Dir, "wide.txt"), strings.Repeat("w", 60*1024)+"\nnext\n")
	testfs.Write(t, filepath.Join(env.Dir, "sub", "with\nnewline.txt"), "odd name")
	testfs.Write(t, filepath.Join(env.Dir, "latin1.txt"), "caf\xe9 ol\xe9 "+strings.Repeat("x", 9000)+"\xff")

	tests := []struct {
		input   string
		want    string
		isError bool
	}{
		{`{"path":"small.txt"}`, "one\ntwo\nthree", false},
		{`{"path":"small.txt","offset":2,"limit":1}`, "two\n\n[Showing lines 2-2 of 3. Use offset=3 to continue.]", false},
		{`{"path":"small.txt","offset":3,"limit":null,"label":null}`, "three", false},
		{`{"path":"small.txt","offset":4}`, "Offset 4 is beyond end of file (3 lines total)", true},
		{`{"path":"missing/config.toml"}`, "File not found: missing/config.toml", true},
		{`{"path":"sub"}`, "sub is a directory; use ls to list it", true},
		{`{"path":"empty.txt"}`, "(empty file)", false},
		{`{"path":"image.png"}`, "[Binary file image.png (16 B, image/png) not shown. Reference it as @./image.png to attach it.]", false},
		{`{"path":"sub/with\nnewline.txt"}`, "odd name", false},
		{`{"path":"wide.txt"}`, "[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' wide.txt | head -c 51200]", true},
		{`{"path":"wide.txt","offset":2}`, "next", false},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			res := run(t, env, "read", tooltest.Decode(t, tt.input))
			wantText(t, res, tt.want)
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v", res.IsError)
			}
		})
	}

	res := run(t, env, "read", tooltest.Decode(t, `{"path":"big.txt"}`))
	if !strings.HasPrefix(res.Text, "line 1\nline 2\n") || !strings.HasSuffix(res.Text, "line 2000\n\n[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]") {
		t.Errorf("big: %q … %q", res.Text[:20], res.Text[len(res.Text)-80:])
	}
	res = run(t, env, "read", tooltest.Decode(t, `{"path":"big.txt","offset":2001}`))
	if !strings.HasSuffix(res.Text, "line 2999\nline 3000") || res.Truncated {
		t.Errorf("rest: %q", res.Text[len(res.Text)-40:])
	}
	res = run(t, env, "read", tooltest.Decode(t, `{"path":"`+filepath.Join(env.Dir, "small.txt")+`","limit":2}`))
	wantText(t, res, "one\ntwo\n\n[Showing lines 1-2 of 3. Use offset=3 to continue.]")
	if res.Truncated {
		t.Error("a read cut by the caller's limit counts as truncated")
	}
	// The byte limit: 100 lines of 1000 bytes, 51 fit in 50 KB; SPEC's note, as for the line limit.
	testfs.Write(t, filepath.Join(env.Dir, "fat.txt"), strings.Repeat(strings.Repeat("f", 999)+"\n", 100))
	res = run(t, env, "read", tooltest.Decode(t, `{"path":"fat.txt"}`))
	if !strings.HasSuffix(res.Text, "f\n\n[Showing lines 1-51 of 100. Use offset=52 to continue.]") || !res.Truncated {
		t.Errorf("fat: …%q", res.Text[len(res.Text)-90:])
	}
	// Offsets inside the file: the caller's limit and the byte limit give the same note.
	res = run(t, env, "read", tooltest.Decode(t, `{"path":"big.txt","offset":10,"limit":3}`))
	wantText(t, res, "line 10\nline 11\nline 12\n\n[Showing lines 10-12 of 3000. Use offset=13 to continue.]")
	res = run(t, env, "read", tooltest.Decode(t, `{"path":"fat.txt","offset":40}`))
	if !strings.HasSuffix(res.Text, "f\n\n[Showing lines 40-90 of 100. Use offset=91 to continue.]") || !res.Truncated {
		t.Errorf("fat from 40: …%q", res.Text[len(res.Text)-90:])
	}
	res = run(t, env, "read", tooltest.Decode(t, `{"path":"latin1.txt"}`))
	if !strings.HasPrefix(res.Text, "[Binary file latin1.txt") {
		t.Errorf("latin1: %.80q", res.Text)
	}
}

func TestWrite(t *testing.T) {
	env := testEnv(t)
	res := run(t, env, "write", tooltest.Decode(t, `{"path":"deep/er/out.txt","content":"héllo\n"}`))
	wantText(t, res, "Successfully wrote 7 bytes to deep/er/out.txt")
	if b, _ := os.ReadFile(filepath.Join(env.Dir, "deep/er/out.txt")); string(b) != "héllo\n" {
		t.Errorf("file holds %q", b)
	}
	script := filepath.Join(env.Dir, "run.sh")
	testfs.Write(t, script, "old")
	os.Chmod(script, 0o755)
	run(t, env, "write", tooltest.Decode(t, `{"path":"run.sh","content":"#!/bin/sh\n"}`))
	if fi, _ := os.Stat(script); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	res = run(t, env, "write", tooltest.Decode(t, `{"path":"deep","content":"x"}`))
	wantText(t, res, "deep is a directory")
	res = run(t, env, "write", tooltest.Decode(t, `{"path":"nl\nname.txt","content":"x"}`))
	wantText(t, res, "Successfully wrote 1 bytes to nl\nname.txt")
}

func TestEdit(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Dir, "config.lua")
	tests := []struct {
		before, input, want, after string
	}{
		{"a = 1\nb = 2\n", `{"path":"config.lua","oldText":"b = 2","newText":"b = 3"}`,
			"Successfully replaced text in config.lua.", "a = 1\nb = 3\n"},
		{"x\nx\n", `{"path":"config.lua","oldText":"x","newText":"y"}`,
			"Found 2 occurrences of the text in config.lua. The text must be unique. Please provide more context to make it unique.", "x\nx\n"},
		{"abc", `{"path":"config.lua","oldText":"zzz","newText":"y"}`,
			"Could not find the exact text in config.lua. The old text must match exactly including all whitespace and newlines.", "abc"},
		{"abc", `{"path":"config.lua","oldText":"","newText":"y"}`,
			"oldText must not be empty; use write to create or overwrite config.lua", "abc"},
		{"abc", `{"path":"config.lua","oldText":"b","newText":"b"}`,
			"No changes made to config.lua. The replacement produced identical content.", "abc"},
		{"one\r\ntwo\r\nthree\r\n", `{"path":"config.lua","oldText":"one\ntwo","newText":"1\n2"}`,
			"Successfully replaced text in config.lua.", "1\r\n2\r\nthree\r\n"},
	}
	for _, tt := range tests {
		testfs.Write(t, path, tt.before)
		res := run(t, env, "edit", tooltest.Decode(t, tt.input))
		wantText(t, res, tt.want)
		if b, _ := os.ReadFile(path); string(b) != tt.after {
			t.Errorf("%s: file %q, want %q", tt.input, b, tt.after)
		}
	}
	res := run(t, env, "edit", tooltest.Decode(t, `{"path":"nope.lua","oldText":"a","newText":"b"}`))
	wantText(t, res, "File not found: nope.lua")
}

func TestSandboxedWritesStayInWritableSet(t *testing.T) {
	env := testEnv(t)
	env.Sandbox.Enabled = true
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(env.Dir, "escape"))
	os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(env.Dir, "dangling"))
	testfs.Write(t, filepath.Join(outside, "victim.txt"), "keep")
	rel, _ := filepath.Rel(env.Dir, filepath.Join(outside, "x.txt"))

	for _, input := range []string{
		`{"path":"/etc/chatls-escape","content":"x"}`,
		`{"path":"/tmp/../etc/chatls-corpus-pwned-2","content":"x"}`,
		`{"path":"escape/x.txt","content":"x"}`,
		`{"path":"dangling","content":"x"}`,
		`{"path":"` + rel + `","content":"x"}`,
	} {
		res := run(t, env, "write", tooltest.Decode(t, input))
		if !res.IsError || !strings.HasPrefix(res.Text, "Refusing to write") {
			t.Errorf("%s: %q", input, res.Text)
		}
	}
	res := run(t, env, "edit", tooltest.Decode(t, `{"path":"escape/victim.txt","oldText":"keep","newText":"lost"}`))
	if !strings.HasPrefix(res.Text, "Refusing to write") {
		t.Errorf("edit through symlink: %q", res.Text)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("outside dir has %d entries", len(entries))
	}
	if _, err := os.Stat("/etc/chatls-escape"); err == nil {
		t.Error("/etc/chatls-escape was written")
	}
	res = run(t, env, "write", tooltest.Decode(t, `{"path":"inside/ok.txt","content":"fine"}`))
	wantText(t, res, "Successfully wrote 4 bytes to inside/ok.txt")
	// The writable set also comes from sandbox.writable.
	env.Sandbox.Writable = []string{outside}
	res = run(t, env, "write", tooltest.Decode(t, `{"path":"escape/x.txt","content":"x"}`))
	wantText(t, res, "Successfully wrote 1 bytes to escape/x.txt")
}

// TestWritesRestrictedWithoutBubblewrap: sandbox.enabled with bubblewrap
// missing — the server runs bash unsandboxed after asking, but write and
// edit still refuse paths outside the writable set.
func TestWritesRestrictedWithoutBubblewrap(t *testing.T) {
	env := testEnv(t)
	env.RestrictWrites = true // what the server passes for sandbox.enabled
	env.Sandbox = tools.SandboxConfig{Enabled: false, Bwrap: "/nonexistent/bwrap"}
	outside := t.TempDir()
	testfs.Write(t, filepath.Join(outside, "victim.txt"), "keep")
	res := run(t, env, "write", tooltest.Decode(t, `{"path":"`+filepath.Join(outside, "new.txt")+`","content":"x"}`))
	if !res.IsError || !strings.HasPrefix(res.Text, "Refusing to write "+filepath.Join(outside, "new.txt")) {
		t.Errorf("write: %q", res.Text)
	}
	res = run(t, env, "edit", tooltest.Decode(t, `{"path":"`+filepath.Join(outside, "victim.txt")+`","oldText":"keep","newText":"lost"}`))
	if !res.IsError || !strings.HasPrefix(res.Text, "Refusing to write") {
		t.Errorf("edit: %q", res.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim.txt")); string(b) != "keep" {
		t.Errorf("victim.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("new.txt was written outside the writable set")
	}
	wantText(t, run(t, env, "write", tooltest.Decode(t, `{"path":"in.txt","content":"ok"}`)), "Successfully wrote 2 bytes to in.txt")
	// Unrestricted, the same write goes through.
	env.RestrictWrites = false
	wantText(t, run(t, env, "write", tooltest.Decode(t, `{"path":"`+filepath.Join(outside, "new.txt")+`","content":"x"}`)),
		"Successfully wrote 1 bytes to "+filepath.Join(outside, "new.txt"))
}
