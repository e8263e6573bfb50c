package coldpages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release unmaps the pages of the running executable's read-only mappings
// (its code and constant data) and returns how many bytes those mappings
// span. A mapping that holds private copies (a dynamic loader's relocations
// in a position-independent build) is left alone: unmapping it would bring
// back the file's unrelocated bytes.
func Release() (int64, error) {
	exe, err := executableID()
	if err != nil {
		return 0, err
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	var released int64
	for _, m := range readOnlyMappingsOf(smaps, exe) {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED); errno != 0 {
			return released, fmt.Errorf("madvise %#x-%#x: %w", m.start, m.end, errno)
		}
		released += int64(m.end - m.start)
	}
	return released, nil
}

// fileID is a file's device ("major:minor" in hex, as /proc prints it),
// inode and path: /proc/self/exe still names the running file after it was
// replaced.
type fileID struct {
	dev   string
	inode uint64
	path  string
}

// is reports whether the two name the same file: the same device and inode,
// or the same path (on overlayfs, in a container, a mapping shows the
// lower layer's device and inode while stat shows the overlay's).
func (f fileID) is(g fileID) bool {
	return f.dev == g.dev && f.inode == g.inode || f.path != "" && f.path == g.path
}

func executableID() (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return fileID{}, err
	}
	path, _ := os.Readlink("/proc/self/exe")
	return fileID{dev: fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev)), inode: st.Ino, path: path}, nil
}

type mapping struct{ start, end uintptr }

// readOnlyMappingsOf are the mappings of file in smaps that are private,
// not writable and hold no private (anonymous) pages.
func readOnlyMappingsOf(smaps []byte, file fileID) []mapping {
	var (
		found     []mapping
		current   mapping
		candidate bool
	)
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if m, perms, id, ok := parseHeader(fields); ok {
			current, candidate = m, (perms == "r-xp" || perms == "r--p") && id.is(file)
			continue
		}
		// "Anonymous:" comes after the header in each mapping's block.
		if candidate && len(fields) >= 2 && fields[0] == "Anonymous:" {
			if fields[1] == "0" {
				found = append(found, current)
			}
			candidate = false
		}
	}
	return found
}

// parseHeader reads a mapping's first line:
// "start-end perms offset dev inode [path]" (a path may hold spaces).
func parseHeader(fields []string) (m mapping, perms string, id fileID, ok bool) {
	if len(fields) < 5 {
		return m, "", id, false
	}
	lo, hi, dash := strings.Cut(fields[0], "-")
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	inode, err3 := strconv.ParseUint(fields[4], 10, 64)
	if !dash || err1 != nil || err2 != nil || err3 != nil {
		return m, "", id, false
	}
	return mapping{uintptr(start), uintptr(end)}, fields[1], fileID{dev: fields[3], inode: inode, path: strings.Join(fields[5:], " ")}, true
}
