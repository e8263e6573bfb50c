package plugin

import (
	"bufio"
	"bytes"
	"fmt"
)

// defaultMaxLine bounds one protocol message. Tool output is cut to 50 KB
// later anyway; this only protects memory from a plugin that floods stdout.
const defaultMaxLine = 4 << 20

type lineTooLongError struct{ max int }

func (e lineTooLongError) Error() string {
	return fmt.Sprintf("wrote a line longer than %d bytes on stdout", e.max)
}

// readLine returns the next line without its newline, or an error once the
// line exceeds max bytes (the rest of the stream is then unusable).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 {
			return nil, lineTooLongError{max}
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return line, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
