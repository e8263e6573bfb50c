package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Entry is one thing under a listed directory.
type Entry struct {
	// Path is relative to the listed directory, with "/" separators.
	Path string
	// Kind: "f" file, "d" directory, "l" symlink (not to a directory),
	// "L" symlink to a directory, "o" anything else.
	Kind string
	Size int64  // files and symlinks to files, when sizes were asked for
	Link string // a symlink's target
	// Content is a file's bytes when contents were asked for and the
	// file is at most MaxContent; TooLarge is set when it is bigger.
	Content  []byte
	TooLarge bool
}

// ListOptions say how deep to go and what to bring back.
type ListOptions struct {
	MaxDepth int      // 0: no limit
	Prune    []string // directory names not descended into (still listed)
	Sizes    bool
	// Contents brings every regular file's bytes (base64 on the wire, so
	// any byte and a file that changes while read cannot desynchronise
	// the stream), up to MaxContent bytes per file.
	Contents   bool
	MaxContent int64
}

// listScript: $1 root, $2 path, $3 max depth (0: none), $4 "s" for sizes,
// $5 the content cap (0: none), $6… the pruned names. It prints what the
// path is ("missing", "file", "dir", "noroot"), then for a directory one
// record per entry: kind, size, link target and path, each ending in
// NUL, and for a file with content asked the base64 of its bytes and a NUL.
const listScript = resolvePath + `if [ ! -e "$p" ]; then echo missing; exit 0; fi
if [ ! -d "$p" ]; then echo file; exit 0; fi
cd "$p" 2>/dev/null || { echo denied; exit 0; }
echo dir
depth=$3 sizes=$4 cap=$5
shift 5
n=$#
for name; do set -- "$@" -o -name "$name"; done
shift $n
[ $# -gt 0 ] && shift
describe='for f; do
  l=; s=; c=
  if [ -L "$f" ]; then l=$(readlink "$f"); if [ -d "$f" ]; then t=L; else t=l; fi
  elif [ -d "$f" ]; then t=d
  elif [ -f "$f" ]; then t=f
  else t=o; fi
  if [ "$SIZES" = s ] && [ "$t" != d ] && [ "$t" != L ] && [ -f "$f" ]; then s=$(wc -c < "$f" | tr -d " "); fi
  if [ "$CAP" != 0 ] && [ "$t" = f ]; then
    n=$(wc -c < "$f" | tr -d " ")
    if [ "$n" -gt "$CAP" ]; then c=big; else c=yes; fi
  fi
  printf "%s\0%s\0%s\0%s\0%s\0" "$t" "$s" "$l" "${f#./}" "$c"
  if [ "$c" = yes ]; then base64 < "$f" 2>/dev/null; printf "\0"; fi
done'
export SIZES="$sizes" CAP="$cap"
if [ "$depth" != 0 ]; then md="-maxdepth $depth"; else md=; fi
if [ $# -gt 0 ]; then
  find . -mindepth 1 $md \( -type d \( "$@" \) -prune -o -true \) -exec sh -c "$describe" sh {} +
else
  find . -mindepth 1 $md -exec sh -c "$describe" sh {} +
fi`

// List lists the directory path on m (relative to root), calling visit
// for each entry in the order find gives them (not sorted). It returns
// what path is: "dir", "file", "missing", "denied" or "noroot"; entries
// come only for "dir".
func List(ctx context.Context, m Machine, root, path string, opt ListOptions, visit func(Entry) error) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	sizes := "-"
	if opt.Sizes {
		sizes = "s"
	}
	content := int64(0)
	if opt.Contents {
		content = max(opt.MaxContent, 1)
	}
	args := append([]string{root, path, strconv.Itoa(opt.MaxDepth), sizes, strconv.FormatInt(content, 10)}, opt.Prune...)
	execErr := make(chan error, 1)
	go func() {
		_, err := m.Exec(ctx, listScript, args, nil, pw)
		pw.CloseWithError(err)
		execErr <- err
	}()
	br := bufio.NewReaderSize(pr, 256<<10)
	head, err := br.ReadString('\n')
	if err != nil {
		pr.Close()
		if err == io.EOF {
			err = &Unreachable{Target: m.Name(), Said: "the listing ended before it began"}
		}
		return "", err
	}
	kind := strings.TrimSpace(head)
	if kind != "dir" {
		pr.Close()
		return kind, nil
	}
	for {
		e, err := readEntry(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			pr.Close()
			return kind, err
		}
		if err := visit(e); err != nil {
			pr.Close()
			return kind, err
		}
	}
	return kind, <-execErr
}

// readEntry reads one record of listScript.
func readEntry(br *bufio.Reader) (Entry, error) {
	var fields [5]string
	for i := range fields {
		f, err := br.ReadString(0)
		if err != nil {
			if i == 0 && f == "" && err == io.EOF {
				return Entry{}, io.EOF
			}
			if err == io.EOF {
				err = errors.New("the listing was cut off")
			}
			return Entry{}, err
		}
		fields[i] = f[:len(f)-1]
	}
	e := Entry{Kind: fields[0], Link: fields[2], Path: fields[3]}
	e.Size, _ = strconv.ParseInt(fields[1], 10, 64)
	switch fields[4] {
	case "big":
		e.TooLarge = true
	case "yes":
		encoded, err := br.ReadBytes(0)
		if err != nil {
			return Entry{}, errors.New("a file's content was cut off")
		}
		encoded = bytes.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == 0 {
				return -1
			}
			return r
		}, encoded)
		e.Content = make([]byte, base64.StdEncoding.DecodedLen(len(encoded)))
		n, err := base64.StdEncoding.Decode(e.Content, encoded)
		if err != nil {
			return Entry{}, errors.New("a file's content arrived damaged")
		}
		e.Content = e.Content[:n]
	}
	return e, nil
}
