package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden sections")

// TestAddRuleGolden edits each testdata/addrule/*.txtar "in" section and
// compares with "out"; -update rewrites "out". The result must also load.
func TestAddRuleGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/addrule/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			comment, sections := parseSections(string(raw))
			rule := strings.TrimSpace(sections["rule"])
			path := filepath.Join(t.TempDir(), "config.toml")
			testfs.Write(t, path, sections["in"])
			if err := AddRule(path, rule, "autoApprove"); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if *update {
				text := comment + "-- rule --\n" + sections["rule"] + "-- in --\n" + sections["in"] + "-- out --\n" + string(got)
				if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(sections["out"], string(got)); diff != "" {
				t.Errorf("AddRule(%q) (-want +got):\n%s", rule, diff)
			}
			s, _, err := LoadFile(path)
			if err != nil {
				t.Fatalf("result does not load: %v", err)
			}
			all := append(append([]string{}, s.Tools.AutoApprove...), s.Tools.AutoApproveAppend...)
			found := false
			for _, r := range all {
				found = found || r == rule
			}
			if !found {
				t.Errorf("rule %q not in the loaded lists %v", rule, all)
			}
		})
	}
}

func TestAddRuleCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config.toml")
	if err := AddRule(path, "bash(go test *)", "autoApprove"); err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadFile(path)
	if err != nil || len(s.Tools.AutoApproveAppend) != 1 {
		t.Fatalf("%v %+v", err, s.Tools)
	}
	if err := AddRule(path, "bash(rm *)", "deny"); err != nil {
		t.Fatal(err)
	}
	s, _, _ = LoadFile(path)
	if len(s.Tools.Deny) != 1 || s.Tools.Deny[0] != "bash(rm *)" {
		t.Errorf("deny: %+v", s.Tools)
	}
}

func TestAddRuleRefusesBrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	testfs.Write(t, path, "[tools\n")
	err := AddRule(path, "bash(go test *)", "autoApprove")
	if err == nil || !strings.Contains(err.Error(), path+":1:") {
		t.Errorf("want a file:line error, got %v", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "[tools\n" {
		t.Errorf("broken file was changed: %q", got)
	}
}

// parseSections reads a txtar-style file: a comment, then "-- name --" sections.
func parseSections(text string) (comment string, sections map[string]string) {
	sections = map[string]string{}
	name := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			name = trimmed[3 : len(trimmed)-3]
			sections[name] = ""
			continue
		}
		if name == "" {
			comment += line
		} else {
			sections[name] += line
		}
	}
	return comment, sections
}
