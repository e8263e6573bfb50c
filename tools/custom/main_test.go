package custom

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Binaries built once for the package's tests.
var testPluginBin, wordcountBin, mcpBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chatls-custom-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testPluginBin = filepath.Join(dir, "testplugin")
	wordcountBin = filepath.Join(dir, "wordcount-plugin")
	mcpBin = filepath.Join(dir, "stdioserver")
	for bin, pkg := range map[string]string{
		testPluginBin: "github.com/chatls/chatls/tools/plugin/testdata/testplugin",
		wordcountBin:  "github.com/chatls/chatls/examples/wordcount-plugin",
		mcpBin:        "github.com/chatls/chatls/tools/mcp/testdata/stdioserver",
	} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
