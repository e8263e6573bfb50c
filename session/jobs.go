package session

import (
	"crypto/sha256"
	"encoding/hex"

	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/tools"
)

// Background jobs (Flemma 0.12, SPEC §1). A call whose input says
// "flemma.background": true gets its result at once — `(job=JOB)`,
// "Running in background as JOB." — so the conversation goes on; the tool
// runs on under the executor like any call (at most once, cancellable by
// its ID), and when it ends its output goes into the last @You: message as
// a Job Result block. A job that ended with the chatls that ran it is
// recovered by the next step.

// jobName is the job of a call: stable for a document and a tool ID, so a
// restarted chatls names the same job.
func jobName(docKey, id string) string {
	sum := sha256.Sum256([]byte(docKey + "\x00" + id))
	return "job_" + hex.EncodeToString(sum[:4])
}

// startJob writes the result of a background call that just started, and
// hands the call back from the ledger: to the cycle it is finished, the
// chain may go on. It runs while the tool does.
func (s *Session) startJob(ds *Doc, id, job string) {
	s.mu.Lock()
	ds.jobs[job] = id
	s.mu.Unlock()
	s.editDocument(ds, "chatls: running in background", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		if r := doc.ToolResult(id); r == nil || !r.IsPlaceholder() {
			return nil, nil
		}
		return chatdoc.BackgroundResult(doc, id, job)
	})
	s.mu.Lock()
	ds.ledger.Done(id)
	s.mu.Unlock()
	s.scheduleDiagnostics(ds) // the status: a job runs, no call
	ds.wake()                 // the chain goes on (SPEC §7)
}

// deliverJob adds a finished job's output as its Job Result, once the
// answer streaming in (if any) has ended: never inside it.
func (s *Session) deliverJob(ds *Doc, job string, res tools.Result) {
	defer func() {
		s.mu.Lock()
		delete(ds.jobs, job)
		s.mu.Unlock()
		s.scheduleDiagnostics(ds)
	}()
	for {
		s.mu.Lock()
		send := ds.send
		s.mu.Unlock()
		if send == nil {
			break
		}
		select {
		case <-send.done:
		case <-ds.done:
			return
		case <-s.baseCtx.Done():
			return
		}
	}
	s.editDocument(ds, "chatls: job result", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		if doc.JobResult(job) != nil {
			return nil, nil // delivered already: never twice
		}
		return chatdoc.AddJobResult(doc, job, res.Text, res.IsError), nil
	})
}

// recoverJobs is the next step's look at background results whose job
// neither runs here nor has delivered its result: the journal's recorded
// output is delivered; a job that ended with its chatls is lost, written
// as Flemma writes it. Another chatls running it is left alone.
func (s *Session) recoverJobs(ds *Doc) bool {
	doc := s.latest(ds)
	if !hasJobs(doc) {
		return false
	}
	delivered := map[string]bool{}
	for _, j := range doc.JobResults() {
		delivered[j.Job] = true
	}
	did := false
	for _, r := range doc.ToolResults() {
		job := r.Job()
		if job == "" || r.Status == chatdoc.StatusError || delivered[job] || doc.ToolResult(r.ID) != r {
			continue
		}
		s.mu.Lock()
		_, here := ds.jobs[job]
		s.mu.Unlock()
		if here || s.journal == nil {
			continue
		}
		id := r.ID
		switch s.journal.State(ds.journalKey(), id) {
		case journal.Finished:
			rec, _ := s.journal.Recorded(ds.journalKey(), id)
			did = s.editDocument(ds, "chatls: job result", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
				if doc.JobResult(job) != nil {
					return nil, nil
				}
				return chatdoc.AddJobResult(doc, job, rec.Text, rec.IsError), nil
			}) || did
		case journal.RunningElsewhere:
		default:
			s.log.Info("a background job ended with the chatls that ran it", zap.String("id", id), zap.String("job", job))
			did = s.editDocument(ds, "chatls: job lost", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
				if r := doc.ToolResult(id); r == nil || r.Status == chatdoc.StatusError || doc.JobResult(job) != nil {
					return nil, nil
				}
				return chatdoc.LoseJob(doc, id, job)
			}) || did
		}
	}
	return did
}

// hasJobs says whether any result of doc is a background call's: the
// usual document has none, and the walk is skipped.
func hasJobs(doc *chatdoc.Document) bool {
	for _, r := range doc.ToolResults() {
		if !r.IsPlaceholder() && r.Job() != "" {
			return true
		}
	}
	return false
}

// runningJobs counts the jobs running in this session.
func (ds *Doc) runningJobs() int { return len(ds.jobs) }
