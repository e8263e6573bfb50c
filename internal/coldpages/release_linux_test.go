package coldpages

import (
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// residentFileKB is RssFile of this process: its pages mapped from files.
func residentFileKB(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

func TestReleaseGivesBackTheExecutablesPagesAndCodeRunsOn(t *testing.T) {
	before := residentFileKB(t)
	want := regexp.MustCompile(`^(a+)+b$`).FindStringSubmatch("aaab")
	released, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := residentFileKB(t)
	t.Logf("RssFile %d → %d kB; mappings released: %d kB", before, after, released>>10)
	if released == 0 || after >= before {
		t.Fatalf("RssFile %d → %d kB after releasing %d bytes: nothing given back", before, after, released)
	}
	// Code and constant data come back from the page cache on use.
	if got := regexp.MustCompile(`^(a+)+b$`).FindStringSubmatch("aaab"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after Release: %q, want %q", got, want)
	}
}

func TestReleaseCoversTheCodeOfTheExecutable(t *testing.T) {
	exe, err := executableID()
	if err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	code := reflect.ValueOf(Release).Pointer()
	for _, m := range readOnlyMappingsOf(smaps, exe) {
		if m.start <= code && code < m.end {
			return
		}
	}
	t.Fatalf("no released mapping holds Release's own code at %#x", code)
}

func TestOnlyTheExecutablesUnmodifiedReadOnlyMappingsAreReleased(t *testing.T) {
	exe := fileID{dev: "fe:00", inode: 42, path: "/usr/bin/chatls"}
	smaps := `00400000-01b5f000 r-xp 00000000 fe:00 42                         /usr/bin/chatls
Size:              24000 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me dw sd
01b5f000-03abe000 r--p 0175f000 fe:00 42                         /usr/bin/chatls
Anonymous:             0 kB
03abe000-03c00000 rw-p 036be000 fe:00 42                         /usr/bin/chatls
Anonymous:           156 kB
03c00000-03c10000 r--p 03800000 fe:00 42                         /usr/bin/chatls
Anonymous:             4 kB
03c10000-03c20000 r--p 00000000 fe:00 43                         /usr/lib/libc.so.6
Anonymous:             0 kB
03c20000-03c30000 r--p 00000000 fe:01 42                         /mnt/other
Anonymous:             0 kB
03c30000-03c40000 r-xp 00000000 00:2a 977                        /usr/bin/chatls
Anonymous:             0 kB
03c40000-03c50000 r--p 00000000 fe:00 43                         /usr/bin/chatls-other
Anonymous:             0 kB
547bd000000-547c0800000 rw-p 00000000 00:00 0 
Anonymous:         28440 kB
`
	got := readOnlyMappingsOf([]byte(smaps), exe)
	want := []mapping{{0x400000, 0x1b5f000}, {0x1b5f000, 0x3abe000}, {0x3c30000, 0x3c40000}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("released %x, want %x (code and constants only: not the data, not a relocated page, not another file; the same path on another device, as overlayfs shows it, counts)", got, want)
	}
}
