package plugin

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("short\r\n"+strings.Repeat("a", 40)+"\nexactly10!\n"+strings.Repeat("b", 11)+"\n"), 16)
	want := []string{"short", "", "exactly10!", ""}
	errs := []bool{false, true, false, true}
	for i := range want {
		line, err := readLine(r, 10)
		var tooLong lineTooLongError
		if gotErr := errors.As(err, &tooLong); gotErr != errs[i] {
			t.Fatalf("line %d: err = %v", i, err)
		}
		if !errs[i] && string(line) != want[i] {
			t.Errorf("line %d = %q, want %q", i, line, want[i])
		}
		if errs[i] {
			// The protocol stream is unusable after an overlong line; skip the rest of it.
			r.ReadString('\n')
		}
	}
	if _, err := readLine(r, 10); err != io.EOF {
		t.Errorf("at end: err = %v, want EOF", err)
	}
}
