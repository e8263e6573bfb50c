package session

import (
	"path/filepath"
	"strings"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/fileuri"
)

// openFile is a file other than a conversation that the editor has open
// and tells the session about (a client that attaches chatls to its other
// buffers): a rewind changes it through the editor, so that the editor's
// undo takes the rewind back (SPEC §10). The session only keeps its text.
type openFile struct {
	uri, path string
	doc       *chatdoc.Document // the editor's text; parsed, never analysed
	version   int32
}

// IsConversation says whether a document the editor opens is a
// conversation (language id `chat`, or a .chat file) or another file the
// session only follows. An editor that names no language (Neovim's buffer
// without a filetype) is taken at the file's name.
func IsConversation(uri, languageID string) bool {
	return languageID == "chat" || languageID == "" || strings.HasSuffix(uri, ".chat")
}

// OpenFile starts following a file that is not a conversation.
func (s *Session) OpenFile(uri, text string, version int32) {
	path := fileuri.ToPath(uri)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // as the checkpoints name files
	}
	f := &openFile{uri: uri, path: path, doc: chatdoc.Parse(text), version: version}
	s.mu.Lock()
	s.files[uri] = f
	s.mu.Unlock()
}

// ChangeFile applies the editor's changes to a followed file. false: it
// is not followed.
func (s *Session) ChangeFile(uri string, changes []chatdoc.Change, version int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[uri]
	if f == nil {
		return false
	}
	f.doc, f.version = f.doc.Apply(changes, s.enc), version
	s.filesChangedLocked()
	return true
}

// filesChangedLocked wakes whoever waits for a followed file to change
// (an agent's write waiting for the editor); the caller holds Session.mu.
func (s *Session) filesChangedLocked() {
	close(s.filesChanged)
	s.filesChanged = make(chan struct{})
}

// CloseFile stops following a file. false: it was not followed.
func (s *Session) CloseFile(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.files[uri]
	delete(s.files, uri)
	if ok {
		s.filesChangedLocked()
	}
	return ok
}

// IsFile says whether uri is a followed file (not a conversation).
func (s *Session) IsFile(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[uri] != nil
}

// openFiles is a copy of the followed files by path, for a rewind.
func (s *Session) openFiles() map[string]openFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]openFile, len(s.files))
	for _, f := range s.files {
		if f.path != "" {
			out[f.path] = *f
		}
	}
	return out
}
