package frontmatter

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Defect: five million "[" overflowed the stack in decodeJSONNode, and
// objects nested thousands deep under "flemma" took memory quadratic in the
// depth (a path string per level). Nesting is limited; past the limit the
// frontmatter is an error, found in time and memory linear in the input.
func TestJSONFrontmatterDeepNestingIsAnError(t *testing.T) {
	for name, code := range map[string]string{
		"brackets":        strings.Repeat("[", 5_000_000),
		"objects":         `{"flemma":` + strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20001),
		"template values": `{"v":` + strings.Repeat(`[`, 300) + strings.Repeat(`]`, 300) + "}",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		d := frontmatterDoc("json", code)
		el := time.Since(start)
		runtime.ReadMemStats(&after)
		if fm := d.Frontmatter; fm.Error != "Frontmatter error: nested more than 200 levels deep" || len(fm.Options) != 0 {
			t.Errorf("%s: error %q options %d", name, fm.Error, len(fm.Options))
		}
		if grew := after.TotalAlloc - before.TotalAlloc; el > 2*time.Second || grew > 64<<20 {
			t.Errorf("%s: %v, %d MB", name, el, grew>>20)
		}
	}
	// Within the limit, deep option objects still give dotted paths.
	d := frontmatterDoc("json", `{"flemma":`+strings.Repeat(`{"a":`, 150)+"1"+strings.Repeat("}", 151))
	if fm := d.Frontmatter; fm.Error != "" || len(fm.Options) != 1 || fm.Options[0].Path != strings.Repeat("a.", 149)+"a" {
		t.Fatalf("error %q options %v", fm.Error, fm.Options)
	}
	// An absurdly long option name is an error, not a quadratic cost.
	d = frontmatterDoc("json", `{"flemma": {"`+strings.Repeat("k", 2000)+`": {"x": 1, "y": 2}}}`)
	if fm := d.Frontmatter; !strings.Contains(fm.Error, "option name longer than") {
		t.Fatalf("error %q", fm.Error)
	}
}
