package target

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The file scripts take the target's root ($1, the login directory when
// empty) and a path ($2) as given by the model: relative paths resolve
// against the root, ~/ against the remote home. Content travels on stdin
// and stdout, never on a command line.
const resolvePath = `[ -n "$1" ] && { cd "$1" 2>/dev/null || { echo noroot; exit 0; }; }
p=$2
case $p in "~") p=$HOME ;; "~/"*) p="$HOME/${p#"~/"}" ;; esac
[ -z "$p" ] && p=.
`

// describeKind prints what $p is, in one word; readKindScript adds the
// size and, for a readable file, the content after a newline.
const describeKind = `kind() {
  if [ -d "$1" ]; then echo dir
  elif [ ! -e "$1" ] && [ ! -L "$1" ]; then echo missing
  elif [ ! -e "$1" ]; then echo dangling
  elif [ -p "$1" ]; then echo pipe
  elif [ -b "$1" ] || [ -c "$1" ]; then echo device
  elif [ -S "$1" ]; then echo socket
  elif [ ! -f "$1" ]; then echo special
  elif [ ! -r "$1" ]; then echo denied
  else echo file; fi
}
`

const readScript = resolvePath + describeKind + `k=$(kind "$p")
if [ "$k" != file ]; then echo "$k"; exit 0; fi
printf 'file %s\n' "$(wc -c < "$p" | tr -d ' ')"
exec cat "$p"`

// FileInfo is what a path is on the machine: Kind is "file", "dir",
// "missing", "dangling" (a symlink to nothing), "pipe", "device",
// "socket", "special", "denied" (not readable) or "noroot".
type FileInfo struct {
	Kind string
	Size int64
}

// ReadFile opens path on m for reading: content streams from the returned
// reader (nil unless Kind is "file"); close it to stop early. The error
// is the link's.
func ReadFile(ctx context.Context, m Machine, root, path string) (FileInfo, io.ReadCloser, error) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		_, err := m.Exec(ctx, readScript, []string{root, path}, nil, pw)
		pw.CloseWithError(err)
	}()
	br := bufio.NewReaderSize(pr, 64<<10)
	head, err := br.ReadString('\n')
	if err != nil {
		cancel()
		pr.Close()
		if err == io.EOF {
			err = &Unreachable{Target: m.Name(), Said: "the read ended before it said what the file is"}
		}
		return FileInfo{}, nil, err
	}
	kind, size, _ := strings.Cut(strings.TrimSpace(head), " ")
	info := FileInfo{Kind: kind}
	if kind != "file" {
		cancel()
		pr.Close()
		return info, nil, nil
	}
	info.Size, _ = strconv.ParseInt(size, 10, 64)
	return info, &streamCloser{Reader: br, close: func() { cancel(); pr.Close() }}, nil
}

type streamCloser struct {
	io.Reader
	close func()
}

func (s *streamCloser) Close() error { s.close(); return nil }

// writeScript overwrites $p in place (so its mode and hard links stay)
// after creating its directory; it says "ok" or what the path is.
const writeScript = resolvePath + describeKind + `k=$(kind "$p")
case $k in dir|pipe|device|socket|special) echo "$k"; exit 0 ;; esac
d=$(dirname "$p")
mkdir -p "$d" 2>/dev/null || { echo nodir; exit 0; }
if cat > "$p"; then echo ok; else echo denied; fi`

// WriteFile writes content to path on m and says how it went: "ok",
// "nodir" (its directory could not be made), "denied" or the kind of
// what is there instead of a file.
func WriteFile(ctx context.Context, m Machine, root, path string, content []byte) (string, error) {
	var out strings.Builder
	_, err := m.Exec(ctx, writeScript, []string{root, path}, strings.NewReader(string(content)), &out)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	status := lines[len(lines)-1]
	if status == "" {
		return "", fmt.Errorf("the write script said nothing")
	}
	return status, nil
}
