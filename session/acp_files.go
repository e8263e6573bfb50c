package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

// openFileWriteTries bounds the edits of an agent's write that the
// editor refuses (the user typing in that file): each is built again on
// the buffer's newest text.
const openFileWriteTries = 5

// writeOpenFile writes content into the editor's buffer of path when that
// file is open there (SPEC §12): one workspace/applyEdit from the buffer's
// text to content, checkpointed as the buffer was and became (SPEC §10).
// done is false when the file is not open (or the document's calls run on
// a remote target): the write goes to disk. An edit the editor refuses
// again and again, or does not answer, changes nothing and is the agent's
// error.
func (c *agentClient) writeOpenFile(ctx context.Context, path, content string) (done bool, err error) {
	s := c.s
	env := s.toolEnv(c.ds)
	if env.Target != nil && env.Target.Remote() {
		return false, nil
	}
	target, _, err := env.WriteTarget(path)
	if err != nil {
		return false, nil // the write tool refuses it, in its words
	}
	if _, open := s.openFiles()[target]; !open {
		return false, nil
	}
	call := tools.Call{ID: "acp_write_" + strconv.FormatInt(c.seq.Add(1), 10), Name: "write", Input: map[string]any{"path": path, "content": content}}
	wrote := false
	before := buffersOf(s.openFiles())
	after := s.checkpointBuffers(c.ds, call, env, before, func(p string) ([]byte, bool) {
		if p == target && wrote {
			return []byte(content), true
		}
		return buffersOf(s.openFiles())(p)
	})
	defer after()
	label := "chatls: the agent writes " + filepath.Base(target)
	var problem string
	for try := 0; try < openFileWriteTries; try++ {
		s.mu.Lock()
		f, open := s.files[fileURIOf(s.files, target)]
		changed := s.filesChanged
		var snap openFile
		if open {
			snap = *f
		}
		s.mu.Unlock()
		if !open {
			// Closed meanwhile: the disk is the file now.
			res := s.runner.Run(ctx, call, env)
			if res.IsError {
				return true, fmt.Errorf("%s", res.Text)
			}
			return true, nil
		}
		e, differs := replaceEdit(snap.doc.Text(), content)
		if !differs {
			wrote = true
			return true, nil
		}
		req := EditRequest{Label: label, Files: []FileEdit{{URI: snap.uri, Version: snap.version, Doc: snap.doc, Edits: []chatdoc.TextEdit{e}}}}
		var res EditReply
		select {
		case res = <-s.editor.ApplyEdit(req):
		case <-ctx.Done():
			return true, ctx.Err()
		}
		if res.Applied {
			wrote = true
			c.awaitFileText(target, content)
			return true, nil
		}
		problem = res.Reason + errText(res.Err)
		if res.Err != nil {
			break // no answer: a second try would not get one either
		}
		// Refused (the user typed): again on the text the editor sends next.
		select {
		case <-changed:
		case <-time.After(refusedRetryMax):
		case <-ctx.Done():
			return true, ctx.Err()
		}
	}
	return true, fmt.Errorf("the editor did not take the write of %s, which is open there (%s): nothing was written; write it again", path, problem)
}

// fileURIOf is the URI of the followed file at path, or "".
func fileURIOf(files map[string]*openFile, path string) string {
	for uri, f := range files {
		if f.path == path {
			return uri
		}
	}
	return ""
}

// awaitFileText waits, at most EchoWait, until the editor has told the
// session that the buffer of path holds text: the agent reads back what
// it wrote.
func (c *agentClient) awaitFileText(path, text string) {
	s := c.s
	if !s.editor.Echoes() {
		return
	}
	deadline := time.NewTimer(EchoWait)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		f := s.files[fileURIOf(s.files, path)]
		same := f == nil || f.doc.Text() == text
		changed := s.filesChanged
		s.mu.Unlock()
		if same {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			return
		case <-s.baseCtx.Done():
			return
		}
	}
}
